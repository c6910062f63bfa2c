// Run Python code in the vendored Pyodide under Node.js (used by pyodide_runner.py).
//
//   node bench/pyodide_runner.mjs < request.json
//
// request.json: {"code": "...", "indexURL": "/abs/assets/vendor/pyodide/", "pyDir": "/abs/py"}
// pyDir is mounted read-only-in-spirit at /py (NODEFS, live sources) and put first
// on sys.path. Python's stdout/stderr go straight to this process's stdout/stderr.
// Exit status: 0, or 1 when the code raised (the traceback is on stderr).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const request = JSON.parse(readFileSync(0, "utf8"));
const { loadPyodide } = await import(pathToFileURL(request.indexURL + "pyodide.mjs").href);

const raw = (stream) => ({
  write(buffer) {
    stream.write(buffer);
    return buffer.length;
  },
});

const pyodide = await loadPyodide({ indexURL: request.indexURL });
pyodide.setStdout(raw(process.stdout));
pyodide.setStderr(raw(process.stderr));

if (request.pyDir) {
  pyodide.FS.mkdirTree("/py");
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: request.pyDir }, "/py");
  pyodide.runPython("import sys; sys.dont_write_bytecode = True; sys.path.insert(0, '/py')");
}

let status = 0;
try {
  await pyodide.runPythonAsync(request.code);
} catch (error) {
  process.stderr.write(String(error.message ?? error) + "\n");
  status = 1;
}
// Let the streams drain before leaving.
process.stdout.write("", () => process.exit(status));
