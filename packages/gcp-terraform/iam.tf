# One identity per function, one that Cloud Tasks' OIDC tokens carry, one for the scheduler and one for the builds.
# Each role on the narrowest resource it applies to; no primitive role (owner, editor, viewer) anywhere. What each
# function calls: docs/serverless.md ("Google Cloud: who holds what").
#
# kubeplane has no Google Compute provider, so there are no Compute Engine permissions here at all: "Compute actions
# limited by label" (as the AWS deploy limits EC2 by tag) would apply to a future provider's identity, with IAM
# conditions on resource.name; labels are not an IAM condition attribute for Compute Engine.

resource "google_service_account" "step" {
  account_id   = "kubeplane-step"
  display_name = "kubeplane step function"
}

resource "google_service_account" "api" {
  account_id   = "kubeplane-api"
  display_name = "kubeplane API function"
}

resource "google_service_account" "watchdog" {
  account_id   = "kubeplane-watchdog"
  display_name = "kubeplane watchdog function"
}

resource "google_service_account" "tasks" {
  account_id   = "kubeplane-tasks"
  display_name = "Identity of Cloud Tasks' OIDC tokens to the step function"
}

resource "google_service_account" "scheduler" {
  account_id   = "kubeplane-scheduler"
  display_name = "Identity of Cloud Scheduler's OIDC tokens to the watchdog"
}

# Builds run as this account, not the project's default compute account (which often holds Editor).
resource "google_service_account" "build" {
  account_id   = "kubeplane-build"
  display_name = "Builds kubeplane's functions"
}

locals {
  # The functions that enqueue steps: a step its next, the API an apply's first, the watchdog a lost one.
  enqueuers = {
    step     = google_service_account.step.member
    api      = google_service_account.api.member
    watchdog = google_service_account.watchdog.member
  }
  # Secret Manager's IAM conditions name secrets by project number (projects/<number>/secrets/<id>).
  secrets_parent = "projects/${data.google_project.this.number}/secrets/"
}

# Creating tasks on this queue only.
resource "google_cloud_tasks_queue_iam_member" "enqueuer" {
  for_each = local.enqueuers
  project  = var.project
  location = google_cloud_tasks_queue.steps.location
  name     = google_cloud_tasks_queue.steps.name
  role     = "roles/cloudtasks.enqueuer"
  member   = each.value
}

# A task with an OIDC token of the tasks identity needs iam.serviceAccounts.actAs on that identity from whoever
# creates it; on that one account, not the project.
resource "google_service_account_iam_member" "act_as_tasks" {
  for_each           = local.enqueuers
  service_account_id = google_service_account.tasks.name
  role               = "roles/iam.serviceAccountUser"
  member             = each.value
}

# The tasks identity may invoke the step function's service, and nothing else.
resource "google_cloud_run_v2_service_iam_member" "tasks_invoke_step" {
  project  = var.project
  location = var.region
  name     = google_cloudfunctions2_function.step.service_config[0].service
  role     = "roles/run.invoker"
  member   = google_service_account.tasks.member
}

# The scheduler identity may invoke the watchdog's service, and nothing else.
resource "google_cloud_run_v2_service_iam_member" "scheduler_invoke_watchdog" {
  project  = var.project
  location = var.region
  name     = google_cloudfunctions2_function.watchdog.service_config[0].service
  role     = "roles/run.invoker"
  member   = google_service_account.scheduler.member
}

# The API's callers: named principals only (variables.tf refuses allUsers and allAuthenticatedUsers).
resource "google_cloud_run_v2_service_iam_member" "api_invokers" {
  for_each = toset(var.api_invokers)
  project  = var.project
  location = var.region
  name     = google_cloudfunctions2_function.api.service_config[0].service
  role     = "roles/run.invoker"
  member   = each.value
}

# Firestore: documents of kubeplane's database only. Firestore evaluates IAM conditions on the database's name.
resource "google_project_iam_member" "firestore" {
  for_each = local.enqueuers
  project  = var.project
  role     = "roles/datastore.user"
  member   = each.value
  condition {
    title       = "kubeplane-database-only"
    description = "Documents of the ${local.database} database alone"
    expression  = "resource.name == \"projects/${var.project}/databases/${local.database}\""
  }
}

# Cluster secrets (CA keys, SSH keys, kubeconfigs): the step function alone creates, reads, writes and deletes them,
# by name under the cluster prefix, and never one under the provider prefix (the defaults nest: kubeplane- is a prefix
# of kubeplane-providers-). A custom role of exactly what SecretManagerStore calls (createSecret, getSecret,
# updateSecret, deleteSecret, addSecretVersion, accessSecretVersion, listSecretVersions, destroySecretVersion):
# secretmanager.admin would add setIamPolicy, secretAccessor could not write. No secretmanager.secrets.list: it is
# checked on the project, so a name condition cannot narrow it, and the engine reads and writes secrets by name.
resource "google_project_iam_custom_role" "cluster_secrets" {
  role_id     = "kubeplaneClusterSecrets"
  title       = "kubeplane cluster secrets"
  description = "What kubeplane's step function does with its cluster secrets"
  permissions = [
    "secretmanager.secrets.create",
    "secretmanager.secrets.get",
    "secretmanager.secrets.update",
    "secretmanager.secrets.delete",
    "secretmanager.versions.add",
    "secretmanager.versions.access",
    "secretmanager.versions.list",
    "secretmanager.versions.destroy",
  ]
}

resource "google_project_iam_member" "step_cluster_secrets" {
  project = var.project
  role    = google_project_iam_custom_role.cluster_secrets.id
  member  = google_service_account.step.member
  condition {
    title       = "kubeplane-cluster-secrets"
    description = "Secrets named ${var.secret_prefix}*, not ${var.provider_secret_prefix}*"
    expression  = "resource.name.startsWith(\"${local.secrets_parent}${var.secret_prefix}\") && !resource.name.startsWith(\"${local.secrets_parent}${var.provider_secret_prefix}\")"
  }
}

# Provider credentials: read-only, by the step function alone, under the provider prefix (you create them).
resource "google_project_iam_member" "step_provider_secrets" {
  project = var.project
  role    = "roles/secretmanager.secretAccessor"
  member  = google_service_account.step.member
  condition {
    title       = "kubeplane-provider-secrets"
    description = "Secrets named ${var.provider_secret_prefix}*"
    expression  = "resource.name.startsWith(\"${local.secrets_parent}${var.provider_secret_prefix}\")"
  }
}

# The build identity: what Cloud Build needs to build a function (read the source, push the image, write logs).
resource "google_project_iam_member" "build" {
  for_each = toset(["roles/logging.logWriter", "roles/artifactregistry.writer", "roles/storage.objectViewer"])
  project  = var.project
  role     = each.value
  member   = google_service_account.build.member
}
