#!/usr/bin/env node
// validate-jsonl.mjs SCHEMA FILE: checks every line of a JSON-lines file (an
// egress log) against a JSON Schema 2020-12. Prints "FILE:LINE: error" for each
// bad line and exits 1 if there is one; 0 when all lines are valid (an empty
// file is valid); 2 on usage or read errors.
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import addKeywords from "ajv-keywords";

const [schemaPath, dataPath] = process.argv.slice(2);
if (!schemaPath || !dataPath) {
  console.error("usage: validate-jsonl.mjs SCHEMA FILE");
  process.exit(2);
}

let schema, text;
try {
  schema = JSON.parse(readFileSync(schemaPath, "utf8"));
  text = readFileSync(dataPath, "utf8");
} catch (error) {
  console.error(`validate-jsonl: ${error.message}`);
  process.exit(2);
}

// Ajv's default strictness: unknown keywords and formats are schema errors.
const ajv = new Ajv2020({ allErrors: true });
addFormats(ajv);
addKeywords(ajv);
let validate;
try {
  validate = ajv.compile(schema);
} catch (error) {
  console.error(`validate-jsonl: ${schemaPath}: ${error.message}`);
  process.exit(2);
}

const lines = text.split("\n");
if (lines.at(-1) === "") lines.pop(); // the final newline ends the last line
let bad = 0;
lines.forEach((line, index) => {
  const where = `${dataPath}:${index + 1}`;
  let value;
  try {
    value = JSON.parse(line);
  } catch (error) {
    console.log(`${where}: not JSON: ${error.message}`);
    bad += 1;
    return;
  }
  if (!validate(value)) {
    const reasons = validate.errors.map((e) => `${e.instancePath || "/"} ${e.message}` +
      (e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ""));
    console.log(`${where}: ${reasons.join("; ")}`);
    bad += 1;
  }
});
if (bad === 0) console.log(`${dataPath}: ${lines.length} lines valid`);
process.exit(bad === 0 ? 0 : 1);
