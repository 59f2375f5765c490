/**
 * Examples of the commands written by hand (not declared by a VerbSpec, whose examples are in
 * its spec), keyed by the command's words below `subctl`. src/cli/help.ts shows them in help,
 * src/docs/ puts them in the reference, and tests/cli/help.test.ts runs each through the parser.
 */
export const HAND_WRITTEN_EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  'auth login': [
    'subctl auth login --base-url https://api.example.com --profile prod',
    'subctl auth login --username admin --password-stdin < admin.pw',
    'subctl auth login --cms --username siobhan.anderson',
  ],
  'auth logout': ['subctl auth logout', 'subctl auth logout --profile prod'],
  'auth refresh': ['subctl auth refresh'],
  'auth status': ['subctl auth status', 'subctl auth status -o json'],
  'auth register': [
    'subctl auth register --email jdoe@example.com --username jdoe --full-name "Jane Doe"',
    'subctl auth register --email jdoe@example.com --username jdoe --password-stdin --referral-code SPRING-7Q2X < jdoe.pw',
  ],
  'auth forgot-password': [
    'subctl auth forgot-password --email jdoe@example.com',
    'subctl auth forgot-password --email jdoe@example.com --cms',
  ],
  'auth reset-password': ['subctl auth reset-password --user-id 17 --reset-token 4f9c2a7e1b'],
  'auth change-password': ['subctl auth change-password', 'subctl auth change-password --password-stdin < old-and-new.txt'],
  'auth verify': ['subctl auth verify --send --type email', 'subctl auth verify --code 482913 --type email'],
  'completion bash': ['subctl completion bash > ~/.local/share/bash-completion/completions/subctl'],
  'completion zsh': ['subctl completion zsh > "${fpath[1]}/_subctl"'],
  'completion fish': ['subctl completion fish > ~/.config/fish/completions/subctl.fish'],
  'config list': ['subctl config list', 'subctl config list -o json'],
  'config use': ['subctl config use prod'],
  'config set': ['subctl config set base-url https://api.example.com --profile prod', 'subctl config set output json'],
  'config get': ['subctl config get', 'subctl config get timeout --profile prod'],
  'config unset': ['subctl config unset timeout --profile prod'],
  console: ['subctl console', 'subctl console subscriptions --read-only'],
  dashboard: ['subctl dashboard', 'subctl dashboard -o json'],
  doctor: ['subctl doctor', 'subctl doctor --profile prod -o json'],
  'sandbox serve': ['subctl sandbox serve', 'subctl sandbox serve --port 0 --scale 10 --chaos latency=0-50,5xx=0.2'],
  'sandbox reset': ['subctl sandbox reset', 'subctl sandbox reset --scale 100'],
  'catalog export': [
    'subctl catalog export > catalog.yaml',
    'subctl catalog export -o json --only services,plans',
    'subctl catalog export --profile prod > prod-catalog.yaml',
  ],
  'catalog diff': [
    'subctl catalog diff -f catalog.yaml',
    'subctl catalog diff -f catalog.yaml --prune -o json',
    'subctl catalog diff -f catalog.yaml --profile prod',
  ],
  'catalog apply': [
    'subctl catalog apply -f catalog.yaml --dry-run',
    'subctl catalog apply -f catalog.yaml --prune --yes --report apply-report.csv',
    'subctl catalog apply -f catalog.yaml --run-id release-42 --yes',
  ],
  version: ['subctl version', 'subctl version -o json'],
  api: [
    'subctl api GET /admin/services -f page_size=5',
    'subctl api endpoints -o json',
    'subctl api POST /admin/services --input service.json',
  ],
};
