import { editFile, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'nginx-listen-port',
  does: 'the load balancers listen for the API on 6444 while the endpoint says 6443',
  breaks: { program: 'nginx', source: 'https://nginx.org/en/docs/stream/ngx_stream_core_module.html#listen' },
  example: 'hybrid-aws-hetzner.yaml',
  caughtBy: ['fast', 'netns'],
  message: /timed out waiting for the API server|no load-balancer node forwards|connection refused/,
  transform: editFile('/etc/kubeplane/nginx.conf', (c) => c.replace(/listen 6443;/, 'listen 6444;')),
};

export default defect.transform;
