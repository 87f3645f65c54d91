import { editFile, FILES, isWorker, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'join-endpoint-port',
  does: 'workers discover the cluster at the API endpoint on port 6444, where nothing listens',
  breaks: { program: 'kubeadm', source: 'cmd/kubeadm/app/discovery/token/token.go (cluster-info is fetched from apiServerEndpoint)' },
  caughtBy: ['fast', 'netns'],
  message: /could not reach the API server at https:\/\/\S+:6444|:6444: connect: connection refused|ECONNREFUSED \S+:6444/,
  transform: editFile(FILES.kubeadmConfig, (c) => c.replace(/(apiServerEndpoint: [^\s:]+):6443/, '$1:6444'), isWorker),
};

export default defect.transform;
