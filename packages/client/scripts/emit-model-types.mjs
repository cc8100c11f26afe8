// Writes dist/model.d.ts: every type exported by @sluice/core/model, printed as plain TypeScript (no zod), and
// points the client's declarations at it. The client imports only types from the model, so its published package
// needs neither @sluice/core nor zod. The printed types are checked to be identical to the model's before the
// build succeeds, so a construct the printer does not understand fails the build instead of shipping a wrong type.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const clientDir = dirname(dirname(fileURLToPath(import.meta.url)));
const distDir = join(clientDir, "dist");
const MODEL_SPECIFIER = "@sluice/core/model";
// the model's source, not core's dist: the types are the same and the client build does not wait on core's d.ts
const MODEL_SOURCE = join(clientDir, "..", "core", "src", "model", "index.ts");
const COMPILER_OPTIONS = {
  paths: { [MODEL_SPECIFIER]: [MODEL_SOURCE] },
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  skipLibCheck: true,
  noEmit: true,
  types: [],
};

/** A program over one in-memory file placed in the client package, so imports resolve as they do for the client. */
function programFor(fileName, text) {
  const path = join(clientDir, fileName);
  const host = ts.createCompilerHost(COMPILER_OPTIONS);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, ...rest) =>
    name === path
      ? ts.createSourceFile(name, text, ts.ScriptTarget.ES2022, true)
      : getSourceFile.call(host, name, ...rest);
  host.fileExists = (name) => name === path || fileExists.call(host, name);
  host.readFile = (name) => (name === path ? text : readFile.call(host, name));
  const program = ts.createProgram([path], COMPILER_OPTIONS, host);
  return { program, sourceFile: program.getSourceFile(path) };
}

function fail(message) {
  throw new Error(`emit-model-types: ${message}`);
}

/** The type exports of the model: name → symbol (interfaces and type aliases; schemas and constants are values). */
function modelTypeExports(checker, sourceFile) {
  const importDecl = sourceFile.statements.find(ts.isImportDeclaration);
  const moduleSymbol = checker.getSymbolAtLocation(importDecl.moduleSpecifier);
  if (!moduleSymbol) fail(`cannot resolve ${MODEL_SPECIFIER} (${MODEL_SOURCE})`);
  const result = new Map();
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    if (symbol.flags & (ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Interface)) result.set(exported.name, symbol);
  }
  return result;
}

const isIdentifier = (name) => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name);
const wrap = (text, needed) => (needed ? `(${text})` : text);

function createPrinter(checker, program, exportsByName) {
  const nameOfSymbol = new Map([...exportsByName].map(([name, symbol]) => [symbol, name]));
  /** Non-generic exported types by identity, so a nested use prints the name instead of the structure again. */
  const nameOfType = new Map();
  for (const [name, symbol] of exportsByName) {
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    const generic = symbol.declarations?.some((d) => d.typeParameters?.length);
    const worthNaming =
      type.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection) ||
      (type.flags & ts.TypeFlags.Union && type.types.every((t) => t.flags & ts.TypeFlags.Literal));
    if (!generic && worthNaming && !nameOfType.has(type)) nameOfType.set(type, name);
  }
  const fromLib = (symbol) =>
    symbol?.declarations?.some((d) => program.isSourceFileDefaultLibrary(d.getSourceFile())) ?? false;
  const expanding = new Set();

  function docComment(symbol, indent) {
    const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
    if (!text) return "";
    const lines = text.split("\n");
    return lines.length === 1
      ? `${indent}/** ${lines[0]} */\n`
      : `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join("\n")}\n${indent} */\n`;
  }

  function printReference(name, args, indent) {
    return args?.length ? `${name}<${args.map((a) => print(a, indent)).join(", ")}>` : name;
  }

  function printObject(type, indent) {
    for (const kind of [ts.SignatureKind.Call, ts.SignatureKind.Construct]) {
      if (checker.getSignaturesOfType(type, kind).length) fail(`unsupported callable ${checker.typeToString(type)}`);
    }
    const inner = `${indent}  `;
    const members = [];
    for (const info of checker.getIndexInfosOfType(type)) {
      const readonly = info.isReadonly ? "readonly " : "";
      members.push(`${inner}${readonly}[key: ${print(info.keyType, inner)}]: ${print(info.type, inner)};`);
    }
    for (const property of checker.getPropertiesOfType(type)) {
      const optional = (property.flags & ts.SymbolFlags.Optional) !== 0;
      const valueType = checker.getTypeOfSymbol(property);
      // `?:` already admits undefined: print the type as written, not as the checker widened it
      const printed =
        optional && valueType.flags & ts.TypeFlags.Union
          ? printUnion(
              valueType.types.filter((t) => !(t.flags & ts.TypeFlags.Undefined)),
              inner,
            )
          : print(valueType, inner);
      const readonly = property.declarations?.some(
        (d) => ts.canHaveModifiers(d) && ts.getModifiers(d)?.some((m) => m.kind === ts.SyntaxKind.ReadonlyKeyword),
      );
      const key = isIdentifier(property.name) ? property.name : JSON.stringify(property.name);
      const declaration = `${readonly ? "readonly " : ""}${key}${optional ? "?" : ""}: ${printed};`;
      members.push(`${docComment(property, inner)}${inner}${declaration}`);
    }
    return members.length ? `{\n${members.join("\n")}\n${indent}}` : "{}";
  }

  function printUnion(types, indent) {
    const hasTrue = types.some((t) => t.flags & ts.TypeFlags.BooleanLiteral && t.intrinsicName === "true");
    const hasFalse = types.some((t) => t.flags & ts.TypeFlags.BooleanLiteral && t.intrinsicName === "false");
    const parts = [];
    for (const t of types) {
      if (hasTrue && hasFalse && t.flags & ts.TypeFlags.BooleanLiteral) {
        if (!parts.includes("boolean")) parts.push("boolean");
        continue;
      }
      parts.push(wrap(print(t, indent), t.flags & ts.TypeFlags.Intersection));
    }
    // `T | null` reads better than the checker's order
    const empty = (p) => p === "null" || p === "undefined";
    return [...parts.filter((p) => !empty(p)), ...parts.filter(empty)].join(" | ");
  }

  function print(type, indent, top = false) {
    const f = type.flags;
    if (f & ts.TypeFlags.Any) return "any";
    if (f & ts.TypeFlags.Unknown) return "unknown";
    if (f & ts.TypeFlags.Never) return "never";
    if (f & ts.TypeFlags.Void) return "void";
    if (f & ts.TypeFlags.Undefined) return "undefined";
    if (f & ts.TypeFlags.Null) return "null";
    if (f & ts.TypeFlags.String) return "string";
    if (f & ts.TypeFlags.Number) return "number";
    if (f & ts.TypeFlags.Boolean) return "boolean";
    if (f & ts.TypeFlags.BigInt) return "bigint";
    if (f & ts.TypeFlags.ESSymbol) return "symbol";
    if (f & ts.TypeFlags.NonPrimitive) return "object";
    if (f & ts.TypeFlags.StringLiteral) return JSON.stringify(type.value);
    if (f & ts.TypeFlags.NumberLiteral) return String(type.value);
    if (f & ts.TypeFlags.BigIntLiteral) return `${type.value.negative ? "-" : ""}${type.value.base10Value}n`;
    if (f & ts.TypeFlags.BooleanLiteral) return type.intrinsicName;
    if (f & ts.TypeFlags.TypeParameter) return type.symbol.name;
    if (!top) {
      const named = nameOfType.get(type);
      if (named) return named;
      if (type.aliasSymbol && nameOfSymbol.has(type.aliasSymbol)) {
        return printReference(nameOfSymbol.get(type.aliasSymbol), type.aliasTypeArguments, indent);
      }
      const target = type.target;
      if (target && target.symbol && nameOfSymbol.has(target.symbol)) {
        return printReference(nameOfSymbol.get(target.symbol), checker.getTypeArguments(type), indent);
      }
    }
    if (f & ts.TypeFlags.Union) return printUnion(type.types, indent);
    if (f & ts.TypeFlags.Intersection) {
      return type.types.map((t) => wrap(print(t, indent), t.flags & ts.TypeFlags.Union)).join(" & ");
    }
    if (!(f & ts.TypeFlags.Object)) fail(`unsupported type ${checker.typeToString(type)}`);
    if (checker.isTupleType(type)) {
      const { elementFlags, readonly } = type.target;
      const items = checker.getTypeArguments(type).map((t, i) => {
        const printed = print(t, indent);
        const wrapped = wrap(printed, t.flags & ts.TypeFlags.UnionOrIntersection);
        if (elementFlags[i] & ts.ElementFlags.Optional) return `${wrapped}?`;
        if (elementFlags[i] & ts.ElementFlags.Rest) return `...${wrapped}[]`;
        return printed;
      });
      return `${readonly ? "readonly " : ""}[${items.join(", ")}]`;
    }
    if (checker.isArrayType(type)) {
      const [element] = checker.getTypeArguments(type);
      const readonly = type.target.symbol?.name === "ReadonlyArray" ? "readonly " : "";
      return `${readonly}${wrap(print(element, indent), element.flags & ts.TypeFlags.UnionOrIntersection)}[]`;
    }
    // Date, Map, … stay references to the standard library
    if (fromLib(type.symbol) && type.objectFlags & (ts.ObjectFlags.Interface | ts.ObjectFlags.Reference)) {
      const args = type.objectFlags & ts.ObjectFlags.Reference ? checker.getTypeArguments(type) : [];
      return printReference(type.symbol.name, args, indent);
    }
    if (expanding.has(type)) fail(`recursive type ${checker.typeToString(type)} needs a name: export it`);
    expanding.add(type);
    try {
      return printObject(type, indent);
    } finally {
      expanding.delete(type);
    }
  }

  return (name, symbol) => {
    const typeParameters = symbol.declarations.flatMap((d) => d.typeParameters ?? []);
    const unique = [...new Map(typeParameters.map((p) => [p.name.text, p])).values()];
    if (unique.some((p) => p.constraint || p.default)) fail(`${name}: constrained or defaulted type parameters`);
    const params = unique.length ? `<${unique.map((p) => p.name.text).join(", ")}>` : "";
    const body = print(checker.getDeclaredTypeOfSymbol(symbol), "", true);
    return `${docComment(symbol, "")}export type ${name}${params} = ${body};`;
  };
}

function emitModelDeclarations() {
  const entry = `import type * as Model from "${MODEL_SPECIFIER}";\n`;
  const { program, sourceFile } = programFor("__model-types__.ts", entry);
  const checker = program.getTypeChecker();
  const exportsByName = modelTypeExports(checker, sourceFile);
  const printType = createPrinter(checker, program, exportsByName);
  const declarations = [...exportsByName].map(([name, symbol]) => printType(name, symbol));
  const header = `// Generated from ${MODEL_SPECIFIER} by scripts/emit-model-types.mjs: plain types, no zod.\n`;
  return { text: `${header}\n${declarations.join("\n\n")}\n`, names: [...exportsByName.keys()], exportsByName };
}

/** Fails unless every printed type is identical to the model's (generic ones compared at `string`). */
function verify(names, exportsByName) {
  const lines = [
    `import type * as Model from "${MODEL_SPECIFIER}";`,
    `import type * as Printed from "./dist/model.js";`,
    "type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;",
  ];
  for (const name of names) {
    const arity = exportsByName.get(name).declarations.flatMap((d) => d.typeParameters ?? []).length;
    const args = arity ? `<${Array(arity).fill("string").join(", ")}>` : "";
    lines.push(`export const ${name}_matches_the_model: Same<Printed.${name}${args}, Model.${name}${args}> = true;`);
  }
  const { program, sourceFile } = programFor("__model-types-check__.ts", lines.join("\n"));
  const diagnostics = [...program.getSemanticDiagnostics(sourceFile), ...program.getSyntacticDiagnostics()];
  const modelFile = program.getSourceFile(join(distDir, "model.d.ts"));
  if (modelFile) diagnostics.push(...program.getSemanticDiagnostics(modelFile));
  if (diagnostics.length) {
    const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => clientDir, getNewLine: () => "\n" };
    const differing = diagnostics
      .filter((d) => d.file === sourceFile && d.start !== undefined)
      .map((d) => lines[sourceFile.getLineAndCharacterOfPosition(d.start).line].match(/const (\w+)_matches/)?.[1]);
    fail(`printed types differ from the model: ${differing.join(", ")}\n${ts.formatDiagnostics(diagnostics, host)}`);
  }
}

const { text, names, exportsByName } = emitModelDeclarations();
writeFileSync(join(distDir, "model.d.ts"), text);
verify(names, exportsByName);
for (const file of readdirSync(distDir).filter((f) => f.endsWith(".d.ts") && f !== "model.d.ts")) {
  const path = join(distDir, file);
  const source = readFileSync(path, "utf8");
  const rewritten = source
    .replaceAll(`'${MODEL_SPECIFIER}'`, "'./model.js'")
    .replaceAll(`"${MODEL_SPECIFIER}"`, '"./model.js"');
  // consumers install no dependency: a declaration importing a package (zod, core) would not resolve for them
  const packageImport = /\bfrom\s+["']([^."'][^"']*)["']|\bimport\(\s*["']([^."'][^"']*)["']/.exec(rewritten);
  if (packageImport) fail(`dist/${file} imports ${packageImport[1] ?? packageImport[2]}`);
  writeFileSync(path, rewritten);
}
for (const file of readdirSync(distDir).filter((f) => f.endsWith(".js"))) {
  if (readFileSync(join(distDir, file), "utf8").includes("@sluice/core")) fail(`dist/${file} imports @sluice/core`);
}
console.log(`emit-model-types: dist/model.d.ts with ${names.length} types (${(text.length / 1024).toFixed(1)} kB)`);
