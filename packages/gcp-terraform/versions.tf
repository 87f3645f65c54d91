# kubeplane on Google Cloud: three gen2 Cloud Functions (step, API, watchdog) chained through a Cloud Tasks queue,
# state in Firestore, secrets in Secret Manager, a 5-minute Cloud Scheduler job, one service account per identity.
# docs/serverless.md ("Google Cloud Functions") explains every part; test/serverless/gcp-deploy.test.ts checks it offline.
terraform {
  required_version = ">= 1.5"
  required_providers {
    google = {
      source  = "hashicorp/google"
      version = "~> 6.0"
    }
    # Zips the functions' bundle directory.
    archive = {
      source  = "hashicorp/archive"
      version = "~> 2.4"
    }
  }
}

provider "google" {
  project = var.project
  region  = var.region
}
