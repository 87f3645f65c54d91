# The APIs, the function source, the Firestore database and the step queue.

locals {
  # Gen2 functions answer at https://<region>-<project>.cloudfunctions.net/<name> (the `url` attribute), which can be
  # written before the function exists: the step function's own environment names its URL (tasks it enqueues target
  # it), which the attribute cannot give without a cycle.
  names = {
    step     = "kubeplane-step"
    api      = "kubeplane-api"
    watchdog = "kubeplane-watchdog"
  }
  function_base_url = "https://${var.region}-${var.project}.cloudfunctions.net"
  step_url          = "${local.function_base_url}/${local.names.step}"
  api_url           = "${local.function_base_url}/${local.names.api}"
  database          = "kubeplane"
  queue             = "kubeplane-steps"
  # The lease outlasts the step function's timeout, so a step never outlives its lease (docs/serverless.md).
  lease_seconds = max(120, var.step_timeout_seconds + 30)
  # API 60 s, watchdog 120 s, each capped by the dispatch deadline: no function outlives a task's deadline.
  api_timeout_seconds      = min(60, var.task_deadline_seconds)
  watchdog_timeout_seconds = min(120, var.task_deadline_seconds)
}

resource "google_project_service" "apis" {
  for_each = toset([
    "cloudfunctions.googleapis.com",
    "run.googleapis.com",
    "cloudbuild.googleapis.com",
    "artifactregistry.googleapis.com",
    "cloudtasks.googleapis.com",
    "firestore.googleapis.com",
    "secretmanager.googleapis.com",
    "cloudscheduler.googleapis.com",
    "storage.googleapis.com",
  ])
  service = each.value
  # Other workloads of the project may use them too.
  disable_on_destroy = false
}

data "google_project" "this" {
  project_id = var.project
}

# The function source: the bundle directory, zipped, in a private bucket; its object name carries the content hash,
# so a new bundle is a new object and a new build.
data "archive_file" "functions" {
  type        = "zip"
  source_dir  = coalesce(var.bundle_dir, "${path.module}/functions")
  output_path = "${path.module}/build/functions.zip"
}

resource "google_storage_bucket" "source" {
  name                        = "${var.project}-kubeplane-source"
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"
  force_destroy               = true
}

resource "google_storage_bucket_object" "functions" {
  name   = "functions-${data.archive_file.functions.output_md5}.zip"
  bucket = google_storage_bucket.source.name
  source = data.archive_file.functions.output_path
}

# State records, leases, rate budgets and pending dead letters (collections <prefix>-state, -leases, -budgets,
# -dead-letters): the record of what exists where, so it cannot be deleted by accident and can be rolled back 7 days.
resource "google_firestore_database" "kubeplane" {
  name                              = local.database
  location_id                       = var.firestore_location
  type                              = "FIRESTORE_NATIVE"
  concurrency_mode                  = "PESSIMISTIC"
  point_in_time_recovery_enablement = "POINT_IN_TIME_RECOVERY_ENABLED"
  delete_protection_state           = "DELETE_PROTECTION_ENABLED"
  # terraform destroy leaves the database (and its records) in place; delete it by hand once every cluster is gone.
  deletion_policy = "ABANDON"
  depends_on      = [google_project_service.apis]
}

# One task per step of one cluster, pushed to the step function with an OIDC token of the tasks identity. Waits are
# tasks with a scheduleTime; a task name dedupes a send. Cloud Tasks has no dead-letter queue: after max_attempts the
# task is dropped, so the step handler's last attempt (X-CloudTasks-TaskRetryCount + 1 == KUBEPLANE_MAX_ATTEMPTS)
# records a pending dead letter in <prefix>-dead-letters and marks the cluster ERROR if the step throws; the
# watchdog marks the clusters whose last attempt crashed or timed out.
resource "google_cloud_tasks_queue" "steps" {
  name     = local.queue
  location = var.region

  retry_config {
    max_attempts = var.max_attempts
    # A failed step is retried after 10 s, 20 s, 40 s, 80 s, then every 300 s (Cloud Tasks doubles the backoff
    # max_doublings times, then grows it linearly to max_backoff).
    min_backoff   = "10s"
    max_backoff   = "300s"
    max_doublings = 4
    # No time limit besides the attempts: the last attempt must run, or the cluster is never marked.
    max_retry_duration = "0s"
  }

  rate_limits {
    # At most as many steps in flight as the step function has instances, so tasks do not queue up in front of it
    # and time out there; dispatches per second well under the function's scale-out.
    max_concurrent_dispatches = 20
    max_dispatches_per_second = 10
  }

  stackdriver_logging_config {
    sampling_ratio = 1.0
  }

  depends_on = [google_project_service.apis]
}
