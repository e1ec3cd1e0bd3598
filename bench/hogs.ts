/** CPU hogs for the labs that measure under load. */
import { type ChildProcess, spawn } from "node:child_process";

/** K busy loops; each also ends itself when the lab is gone, should the lab be killed outright. */
export function startHogs(count: number): ChildProcess[] {
  const loop = `const p=${process.pid};for(;;){for(let i=0;i<5e7;i++);try{process.kill(p,0)}catch{process.exit(0)}}`;
  return Array.from({ length: count }, () => spawn(process.execPath, ["-e", loop], { stdio: "ignore" }));
}
