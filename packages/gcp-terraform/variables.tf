variable "project" {
  description = "The Google Cloud project id kubeplane runs in."
  type        = string
}

variable "region" {
  description = "Region of the functions, the Cloud Tasks queue and the scheduler job."
  type        = string
  default     = "europe-west1"
}

variable "firestore_location" {
  description = "Location of the Firestore database (a region or a multi-region such as eur3)."
  type        = string
  default     = "europe-west1"
}

variable "bundle_dir" {
  description = "A directory holding the functions' index.js and package.json; default the bundle this module ships (functions/, built from @kubeplane/handlers of the same version)."
  type        = string
  default     = null
}

variable "access" {
  description = "The API's access grants (KUBEPLANE_ACCESS, a JSON array; principals are Google emails, * wildcards). Empty: the API refuses every request."
  type        = string
  default     = "[]"
  validation {
    condition     = can(tolist(jsondecode(var.access)))
    error_message = "access must be a JSON array of grants (docs/serverless.md, \"Who may do what\")."
  }
}

variable "api_invokers" {
  description = "Principals that may reach the API at all (roles/run.invoker on its service), e.g. group:platform@example.com. Their access grants decide the rest."
  type        = list(string)
  default     = []
  validation {
    # The API is never public: anyone could otherwise reach it with no identity at all.
    condition     = alltrue([for m in var.api_invokers : !contains(["allUsers", "allAuthenticatedUsers"], m)])
    error_message = "api_invokers must name principals, not allUsers or allAuthenticatedUsers."
  }
}

variable "api_auth" {
  description = "iam: Cloud Run checks the caller's token and invoker role (default). id-token: the function verifies a Google ID token itself (audience api_audience)."
  type        = string
  default     = "iam"
  validation {
    condition     = contains(["iam", "id-token"], var.api_auth)
    error_message = "api_auth is iam or id-token."
  }
}

variable "api_audience" {
  description = "The audience an ID token must carry in id-token mode; default the API function's URL."
  type        = string
  default     = ""
}

variable "max_attempts" {
  description = "Deliveries of one step task before it is given up (the queue's retry_config.max_attempts); the handler's last attempt marks the cluster ERROR."
  type        = number
  default     = 5
  validation {
    condition     = var.max_attempts >= 2 && var.max_attempts <= 100
    error_message = "max_attempts must be 2-100: a finite retry limit, so a poison step ends in the dead-letter path."
  }
}

variable "step_timeout_seconds" {
  description = "The step function's timeout. One bounded step per invocation; the lease outlasts it by 30 s."
  type        = number
  default     = 90
}

variable "task_deadline_seconds" {
  description = "Each task's dispatch deadline (KUBEPLANE_TASK_DEADLINE_SECONDS): at least every function's timeout, at most Cloud Tasks' 1800 s."
  type        = number
  default     = 120
  validation {
    condition     = var.task_deadline_seconds >= 15 && var.task_deadline_seconds <= 1800
    error_message = "task_deadline_seconds must be 15-1800 s, Cloud Tasks' range for an HTTP task's dispatch deadline."
  }
}

variable "collection_prefix" {
  description = "Firestore collections <prefix>-state, -leases, -budgets, -dead-letters."
  type        = string
  default     = "kubeplane"
}

variable "secret_prefix" {
  description = "Cluster secrets' id prefix (the step function creates them)."
  type        = string
  default     = "kubeplane-"
}

variable "provider_secret_prefix" {
  description = "Provider credentials' id prefix: a project's are <prefix><project>-<name>, created by you."
  type        = string
  default     = "kubeplane-providers-"
}
