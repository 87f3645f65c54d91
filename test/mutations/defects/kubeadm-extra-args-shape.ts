import { parseAllDocuments } from 'yaml';
import { editFile, FILES, type Defect } from '../defect.js';

/** v1beta4's `kubeletExtraArgs: [{name, value}]` written as v1beta3's map. */
function argsAsMap(config: string): string {
  return parseAllDocuments(config)
    .map((doc) => {
      const args = doc.getIn(['nodeRegistration', 'kubeletExtraArgs']);
      const json = doc.toJS() as { apiVersion?: string; nodeRegistration?: { kubeletExtraArgs?: Array<{ name: string; value: string }> } };
      const list = json.nodeRegistration?.kubeletExtraArgs;
      if (args !== undefined && json.apiVersion === 'kubeadm.k8s.io/v1beta4' && Array.isArray(list))
        doc.setIn(['nodeRegistration', 'kubeletExtraArgs'], Object.fromEntries(list.map((a) => [a.name, a.value])));
      return doc.toString();
    })
    .join('');
}

export const defect: Defect = {
  id: 'kubeadm-extra-args-shape',
  does: "the kubeadm config keeps v1beta4's apiVersion but writes kubeletExtraArgs as v1beta3's map",
  breaks: { program: 'kubeadm', source: 'cmd/kubeadm/app/apis/kubeadm/v1beta4/types.go (extraArgs became []Arg; kubeadm decodes strictly)' },
  caughtBy: ['fast', 'netns'],
  message: /cannot unmarshal object into Go struct field NodeRegistrationOptions\.nodeRegistration\.kubeletExtraArgs of type \[\]v1beta4\.Arg/,
  transform: editFile(FILES.kubeadmConfig, argsAsMap),
};

export default defect.transform;
