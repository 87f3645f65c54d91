// The netns machines carry out their #cloud-config with the sdk's first-boot renderer, the one static machines run
// over SSH too (packages/sdk/src/bootstrap/first-boot.ts).
export {
  CloudConfigInvalid,
  decodeUserData,
  parseCloudConfig,
  renderFirstBootScript,
  renderRuncmdScript,
  type CloudConfig,
  type CloudInitFile,
} from '@kubeplane/sdk/internal';
