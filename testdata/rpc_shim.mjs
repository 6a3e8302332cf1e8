// RpcClient's cliPath for lunar (e2e_pi_rpc_test.go): runs $LUNAR_BIN with
// the arguments RpcClient gives, on the same stdin, stdout and stderr.
import { spawn } from "node:child_process";

const child = spawn(process.env.LUNAR_BIN, process.argv.slice(2), { stdio: "inherit" });
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
