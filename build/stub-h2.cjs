// Bundled in place of undici's HTTP/2 client: subctl never enables HTTP/2 (allowH2 stays
// false), and undici's client-h2 loads node:http2 and node:tls at start-up (~10 ms on every
// command). Should a server ever negotiate h2, this says so plainly.
'use strict';
module.exports = function connectH2() {
  throw new Error('HTTP/2 is not supported by this build of subctl');
};
