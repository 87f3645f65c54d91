import { editFile, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'nginx-upstream-port',
  does: "the load balancers forward the API to the control planes' port 6444, where nothing listens",
  breaks: { program: 'nginx', source: 'https://nginx.org/en/docs/stream/ngx_stream_upstream_module.html#server' },
  example: 'hybrid-aws-hetzner.yaml',
  caughtBy: ['fast', 'netns'],
  message: /timed out waiting for the API server|no load-balancer node forwards|connection refused/,
  transform: editFile('/etc/kubeplane/nginx.conf', (c) => c.replace(/(server [\d.]+):6443 /g, '$1:6444 ')),
};

export default defect.transform;
