#!/usr/bin/env node
// Closes a gap of @kitajs/ts-html-plugin's xss-scan (4.1.4): in a JSX child `{cond ? a : b}` it
// checks `b` twice and never `a` (util.js getNodeExpressions returns [whenFalse, whenFalse]), so
// `<p>{shown ? name : ''}</p>` passes unescaped. This walks the same program and checks every
// branch of every conditional in a child position with the plugin's own rule (isSafeAttribute):
// a branch that is neither JSX, nor a safe type, nor an escapeHtml(...) call fails the build,
// unless its element has `safe` (or is a <script>, which the plugin also skips). When the other
// branch is safe, escape the branch itself (`c ? escapeHtml(x) : ''`): the plugin, reading only
// the else branch, reports a `safe` on the element as unused (K604).
// Usage: node scripts/xss-scan-ternaries.mjs [-p tsconfig.json]   (npm run typecheck runs it)
import { createRequire } from 'node:module';
import { dirname, relative } from 'node:path';
import ts from 'typescript';

const require = createRequire(import.meta.url);
const { isSafeAttribute, getSafeAttribute } = require('@kitajs/ts-html-plugin/dist/util.js');

const at = process.argv.indexOf('-p');
const project = at > 0 ? process.argv[at + 1] : 'tsconfig.json';
const { config, error } = ts.readConfigFile(project, ts.sys.readFile);
if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
const parsed = ts.parseJsonConfigFileContent(config, ts.sys, dirname(project));
const program = ts.createProgram(parsed.fileNames, parsed.options);
const checker = program.getTypeChecker();

const isJsx = (n) => ts.isJsxElement(n) || ts.isJsxSelfClosingElement(n) || ts.isJsxFragment(n);
const BOOLEAN_OPERATORS = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken, ts.SyntaxKind.GreaterThanToken, ts.SyntaxKind.GreaterThanEqualsToken,
  ts.SyntaxKind.LessThanToken, ts.SyntaxKind.LessThanEqualsToken, ts.SyntaxKind.InstanceOfKeyword, ts.SyntaxKind.InKeyword,
]);

/** The values an expression can render, through parentheses, conditionals and `||`/`??`/`&&`. */
function leaves(node, out = []) {
  if (ts.isParenthesizedExpression(node)) return leaves(node.expression, out);
  if (ts.isConditionalExpression(node)) return leaves(node.whenFalse, leaves(node.whenTrue, out));
  if (ts.isBinaryExpression(node)) {
    if (!BOOLEAN_OPERATORS.has(node.operatorToken.kind)) leaves(node.right, leaves(node.left, out));
    return out;
  }
  out.push(node);
  return out;
}

function unsafe(leaf) {
  if (isJsx(leaf)) return false;
  if (isSafeAttribute(ts, checker.getTypeAtLocation(leaf), checker, leaf)) return false;
  // `items.map((i) => <li>…</li>)` and the like: the JSX inside is checked where it stands.
  return !(!ts.isIdentifier(leaf) && leaf.getChildren().some(isJsx));
}

const problems = [];
for (const file of program.getSourceFiles()) {
  if (file.isDeclarationFile || !file.fileName.endsWith('.tsx') || file.fileName.includes('/node_modules/')) continue;
  const visit = (node) => {
    const escaped = ts.isJsxElement(node) && (node.openingElement.tagName.getText() === 'script' || getSafeAttribute(node.openingElement));
    if ((ts.isJsxElement(node) || ts.isJsxFragment(node)) && !escaped) {
      for (const child of node.children) {
        if (!ts.isJsxExpression(child) || !child.expression) continue;
        const all = leaves(child.expression);
        if (all.length < 2 || !containsConditional(child.expression)) continue;
        for (const leaf of all.filter(unsafe)) {
          const { line, character } = file.getLineAndCharacterOfPosition(leaf.getStart());
          problems.push(`${relative(process.cwd(), file.fileName)}(${line + 1},${character + 1}): a branch of a conditional is rendered without escaping: ${leaf.getText()}`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}

function containsConditional(node) {
  if (ts.isParenthesizedExpression(node)) return containsConditional(node.expression);
  if (ts.isConditionalExpression(node)) return true;
  return ts.isBinaryExpression(node) && (containsConditional(node.left) || containsConditional(node.right));
}

for (const p of problems) console.error(p);
if (problems.length) {
  console.error(`\n${problems.length} unescaped conditional branch(es): escape the branch, \`cond ? escapeHtml(value) : ''\` (or \`safe\` on the element when the other branch is data too).`);
  process.exit(1);
}
console.log(`No unescaped conditional branches in ${program.getSourceFiles().filter((f) => f.fileName.endsWith('.tsx') && !f.fileName.includes('/node_modules/')).length} .tsx files.`);
