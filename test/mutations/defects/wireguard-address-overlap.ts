import { editFile, FILES, isWorker, type Defect } from '../defect.js';

export const defect: Defect = {
  id: 'wireguard-address-overlap',
  does: "workers take the control plane's overlay address as their own",
  breaks: { program: 'WireGuard', source: 'https://www.wireguard.com/#cryptokey-routing (one address, one peer)' },
  caughtBy: ['fast', 'netns'],
  message: /no WireGuard handshake|overlay pairs without a WireGuard handshake|not found in the host's network interfaces/,
  transform: editFile(FILES.wireguard, (c) => c.replace(/^Address = [\d.]+\//m, 'Address = 10.0.0.1/'), isWorker),
};

export default defect.transform;
