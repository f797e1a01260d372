// node-wasi.mjs - run a wasm32-wasi command module under Node's WASI, as a
// second runtime to check the kernels' checksums against (not the engine).
// usage: node --no-warnings --single-threaded node-wasi.mjs app.wasm [args...]
// (--single-threaded: Node 20 segfaults at exit after a large memory.grow
// when V8 background threads are running.)
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';

const [file, ...args] = process.argv.slice(2);
if (!file) {
	console.error('node-wasi.mjs: usage: node-wasi.mjs app.wasm [args...]');
	process.exit(2);
}
const wasi = new WASI({ version: 'preview1', args: [file, ...args], env: {},
                        returnOnExit: true });
const mod = await WebAssembly.compile(await readFile(file));
const inst = await WebAssembly.instantiate(mod, wasi.getImportObject());
process.exitCode = wasi.start(inst);
