import { editFile, FILES, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'containerd-config-toml',
  does: "the script leaves containerd's configuration marked version 3 (containerd 2.x's layout) for the 1.7 the node installs, which then does not start",
  breaks: {
    program: 'containerd',
    source: "https://github.com/containerd/containerd/blob/release/1.7/docs/man/containerd-config.toml.5.md (version 2 is 1.7's layout)",
  },
  caughtBy: ['fast', 'netns'],
  message: /Job for containerd\.service failed because the control process exited with error code/,
  transform: editFile(FILES.bootstrapScript, (c) =>
    c.replace(
      /^(\s*)(sed -i 's\/SystemdCgroup = false\/SystemdCgroup = true\/' \/etc\/containerd\/config\.toml)$/m,
      "$1$2\n$1sed -i 's/^version = 2$/version = 3/' /etc/containerd/config.toml",
    ),
  ),
};

export default defect.transform;
