// Preloaded with `node -r`: writes the built-in modules the process loaded (process.moduleLoadList)
// to $BUILTINS_FILE when it exits.
'use strict';
process.on('exit', () => require('node:fs').writeFileSync(process.env.BUILTINS_FILE, process.moduleLoadList.join('\n')));
