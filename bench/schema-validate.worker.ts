/**
 * Child process of the validate benchmark: times one contender on one case in
 * a fresh V8, so that no contender inherits another's JIT state (cfworker's
 * shared `validate` function otherwise makes results depend on run order).
 * Prints the median ns/op as JSON.
 */
import { Validator } from '@cfworker/json-schema';
import { Ajv } from 'ajv';
import { ToolSchemaRegistry } from '../src/index.js';
import { measure } from './harness.js';
import { schemaCases } from './schema-cases.js';

const [size, contender] = process.argv.slice(2);
const c = schemaCases().find((x) => x.size === size);
if (c === undefined) throw new Error(`unknown case ${size}`);
let validate: () => unknown;
if (contender === 'registry') {
  const compiled = new ToolSchemaRegistry().compile(c.schema, { tool: c.size });
  if (!compiled.validate(c.args).ok) throw new Error('benchmark arguments are invalid');
  validate = () => compiled.validate(c.args);
} else if (contender === 'cfworker') {
  const raw = new Validator(structuredClone(c.schema), '7');
  validate = () => raw.validate(c.args);
} else {
  const ajv = new Ajv({ strict: false }).compile(c.schema);
  validate = () => ajv(c.args);
}
const { nsPerOp } = measure(contender ?? '', validate, { rounds: 15, opsPerRound: size === 'large' ? 500 : 3000 });
console.log(JSON.stringify({ nsPerOp }));
