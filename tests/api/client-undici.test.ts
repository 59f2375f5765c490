// Every client rule of client.test.ts again, over the undici transport (bulk runs, --all
// exports and the console use it; single commands use node:http).
globalThis.subctlTestThroughput = true;
await import('./client.test.js');
export {};
