// Bundled in place of Commander's `require('node:child_process')`: Commander needs it only for
// executable subcommands, which subctl does not use, and loading it costs a few ms per command.
'use strict';
let real;
module.exports = new Proxy(
  {},
  {
    get(_target, key) {
      real ??= require('node:child_process');
      return real[key];
    },
  },
);
