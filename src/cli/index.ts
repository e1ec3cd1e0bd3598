#!/usr/bin/env node
import { runCli } from "./main.ts";
import { rootCommand } from "../commands/root.ts";
import { VERSION } from "../version.ts";

const code = await runCli(rootCommand, process.argv.slice(2), VERSION);
process.exitCode = code;
