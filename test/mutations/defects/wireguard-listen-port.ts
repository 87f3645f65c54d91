import { editFile, FILES, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'wireguard-listen-port',
  does: 'every machine listens on UDP 51821 while its peers are told 51820',
  breaks: { program: 'WireGuard', source: 'https://www.wireguard.com/#built-in-roaming (a peer is sent to only at its endpoint); wg(8) ListenPort' },
  caughtBy: ['fast', 'netns'],
  message: /no WireGuard handshake|not WireGuard peers|overlay pairs without a WireGuard handshake/,
  transform: editFile(FILES.wireguard, (c) => c.replace(/^ListenPort = \d+$/m, 'ListenPort = 51821')),
};

export default defect.transform;
