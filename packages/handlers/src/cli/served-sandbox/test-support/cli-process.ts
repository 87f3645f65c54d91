// The kubeplane CLI from source, as its own process (run with `tsx --conditions=@kubeplane/source`): tests start
// `kubeplane sandbox serve` this way, so its msw interception never touches the test process's own clients.
import { main } from '../../main.js';

process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), env: process.env });
