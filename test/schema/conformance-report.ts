/**
 * `npm run conformance`: prints the JSON-Schema-Test-Suite table of
 * docs/conformance.md (registry next to raw cfworker, same run, same remotes).
 */
import { runDialect, SUITE_DIALECTS, summarise } from './conformance-suite.js';

console.log(
  '| suite | tests | registry passes | raw cfworker passes | rejected at load (by rule) | registry / raw on schemas the registry loads |',
);
console.log('| --- | --- | --- | --- | --- | --- |');
for (const entry of SUITE_DIALECTS) {
  const s = summarise(runDialect(entry));
  console.log(
    `| ${entry.dir} | ${s.total} | ${s.registryPassed} | ${s.rawPassed} | ${s.rejected} | ${s.registryPassedWhereLoaded} / ${s.rawPassedWhereLoaded} |`,
  );
}
