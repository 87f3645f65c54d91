// The deploy's entry module (@kubeplane/gcp-terraform points Cloud Functions at it): registers kubeplaneStep, kubeplaneApi and
// kubeplaneWatchdog, built from the function's environment on the first request.
import { registerGcpFunctions } from './register.js';
import { gcpRuntimeFromEnv } from './runtime.js';

registerGcpFunctions(() => gcpRuntimeFromEnv(process.env));
