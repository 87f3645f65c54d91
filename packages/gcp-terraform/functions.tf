# The three gen2 functions (nodejs22), one bundle, one entry point each (registered by
# packages/handlers/src/gcp/functions.ts). The environment is the contract with the runtime (gcpRuntimeFromEnv).

locals {
  environment = {
    # Cloud Functions' newer runtimes do not set it themselves; the runtime reads it.
    GOOGLE_CLOUD_PROJECT             = var.project
    KUBEPLANE_LOCATION               = var.region
    KUBEPLANE_TASKS_QUEUE            = local.queue
    KUBEPLANE_STEP_URL               = local.step_url
    KUBEPLANE_TASKS_SERVICE_ACCOUNT  = google_service_account.tasks.email
    KUBEPLANE_MAX_ATTEMPTS           = tostring(var.max_attempts)
    KUBEPLANE_TASK_DEADLINE_SECONDS  = tostring(var.task_deadline_seconds)
    KUBEPLANE_FIRESTORE_DATABASE     = google_firestore_database.kubeplane.name
    KUBEPLANE_COLLECTION_PREFIX      = var.collection_prefix
    KUBEPLANE_SECRET_PREFIX          = var.secret_prefix
    KUBEPLANE_PROVIDER_SECRET_PREFIX = var.provider_secret_prefix
    KUBEPLANE_LEASE_SECONDS          = tostring(local.lease_seconds)
  }
  # Who may do what through the API, and how callers are verified: the API function's alone.
  api_only_environment = {
    KUBEPLANE_ACCESS       = var.access
    KUBEPLANE_API_AUTH     = var.api_auth
    KUBEPLANE_API_AUDIENCE = var.api_audience != "" ? var.api_audience : local.api_url
  }
  source = {
    bucket = google_storage_bucket.source.name
    object = google_storage_bucket_object.functions.name
  }
}

resource "google_cloudfunctions2_function" "step" {
  name        = local.names.step
  location    = var.region
  description = "kubeplane: runs one step of one cluster per Cloud Tasks task"

  build_config {
    runtime         = "nodejs22"
    entry_point     = "kubeplaneStep"
    service_account = google_service_account.build.id
    source {
      storage_source {
        bucket = local.source.bucket
        object = local.source.object
      }
    }
  }

  service_config {
    # One step per invocation, bounded; Cloud Tasks waits for it up to the dispatch deadline, which is longer.
    timeout_seconds                  = var.step_timeout_seconds
    available_memory                 = "512Mi"
    max_instance_count               = 20
    max_instance_request_concurrency = 1
    service_account_email            = google_service_account.step.email
    environment_variables            = local.environment
    # Reached by Cloud Tasks only (with an OIDC token of the tasks identity, checked by IAM).
    ingress_settings               = "ALLOW_ALL"
    all_traffic_on_latest_revision = true
  }

  lifecycle {
    # Cloud Tasks must wait for the step at least as long as it may run, or it retries a step still running.
    precondition {
      condition     = var.step_timeout_seconds <= var.task_deadline_seconds
      error_message = "step_timeout_seconds must not exceed task_deadline_seconds."
    }
  }

  depends_on = [google_project_service.apis, google_project_iam_member.build]
}

resource "google_cloudfunctions2_function" "api" {
  name        = local.names.api
  location    = var.region
  description = "kubeplane: apply, status, destroy, reconcile of projects"

  build_config {
    runtime         = "nodejs22"
    entry_point     = "kubeplaneApi"
    service_account = google_service_account.build.id
    source {
      storage_source {
        bucket = local.source.bucket
        object = local.source.object
      }
    }
  }

  service_config {
    timeout_seconds                  = local.api_timeout_seconds
    available_memory                 = "512Mi"
    max_instance_count               = 10
    max_instance_request_concurrency = 1
    service_account_email            = google_service_account.api.email
    environment_variables            = merge(local.environment, local.api_only_environment)
    # Callers come from anywhere, but never anonymously: run.invoker is granted to var.api_invokers alone (iam.tf).
    ingress_settings               = "ALLOW_ALL"
    all_traffic_on_latest_revision = true
  }

  depends_on = [google_project_service.apis, google_project_iam_member.build]
}

resource "google_cloudfunctions2_function" "watchdog" {
  name        = local.names.watchdog
  location    = var.region
  description = "kubeplane: re-queues lost steps and marks clusters whose last attempt died"

  build_config {
    runtime         = "nodejs22"
    entry_point     = "kubeplaneWatchdog"
    service_account = google_service_account.build.id
    source {
      storage_source {
        bucket = local.source.bucket
        object = local.source.object
      }
    }
  }

  service_config {
    timeout_seconds                  = local.watchdog_timeout_seconds
    available_memory                 = "512Mi"
    max_instance_count               = 1
    max_instance_request_concurrency = 1
    service_account_email            = google_service_account.watchdog.email
    environment_variables            = local.environment
    ingress_settings                 = "ALLOW_ALL"
    all_traffic_on_latest_revision   = true
  }

  depends_on = [google_project_service.apis, google_project_iam_member.build]
}

# Every 5 minutes, with an OIDC token of the scheduler identity (run.invoker on the watchdog alone). A run that fails
# is not retried: the next one comes within 5 minutes.
resource "google_cloud_scheduler_job" "watchdog" {
  name             = "kubeplane-watchdog"
  region           = var.region
  schedule         = "*/5 * * * *"
  time_zone        = "Etc/UTC"
  attempt_deadline = "${local.watchdog_timeout_seconds}s"

  retry_config {
    retry_count = 0
  }

  http_target {
    http_method = "POST"
    uri         = google_cloudfunctions2_function.watchdog.url
    oidc_token {
      service_account_email = google_service_account.scheduler.email
      audience              = google_cloudfunctions2_function.watchdog.url
    }
  }

  depends_on = [google_project_service.apis]
}

output "api_url" {
  description = "The API (callers need run.invoker on it and an access grant)."
  value       = google_cloudfunctions2_function.api.url
}

output "step_url" {
  value = google_cloudfunctions2_function.step.url
}

output "provider_secret_prefix" {
  description = "Create each project's provider credentials as <prefix><project>-<name> (a JSON object of the credential keys)."
  value       = var.provider_secret_prefix
}
