// Dev-time reference: pi's v1->v2->v3 migration on JS objects, with
// deterministic ids (00000001, 00000002, ...) so that lunar's Go migration
// can be compared byte for byte. Prints the sha256 of the migrated file.
const fs = require("fs");
const crypto = require("crypto");
const entries = [];
for (const line of fs.readFileSync(process.argv[2], "utf8").trim().split("\n")) {
  if (!line.trim()) continue;
  try { entries.push(JSON.parse(line)); } catch {}
}
let n = 0;
const nextId = () => (++n).toString(16).padStart(8, "0");
const header = entries.find((e) => e.type === "session");
const version = header?.version ?? 1;
if (version < 2) {
  let prevId = null;
  for (const entry of entries) {
    if (entry.type === "session") { entry.version = 2; continue; }
    entry.id = nextId();
    entry.parentId = prevId;
    prevId = entry.id;
    if (entry.type === "compaction" && typeof entry.firstKeptEntryIndex === "number") {
      const target = entries[entry.firstKeptEntryIndex];
      if (target && target.type !== "session") entry.firstKeptEntryId = target.id;
      delete entry.firstKeptEntryIndex;
    }
  }
}
if (version < 3) {
  for (const entry of entries) {
    if (entry.type === "session") { entry.version = 3; continue; }
    if (entry.type === "message" && entry.message && entry.message.role === "hookMessage") entry.message.role = "custom";
  }
}
const out = entries.map((e) => JSON.stringify(e)).join("\n") + "\n";
if (process.argv[3]) fs.writeFileSync(process.argv[3], out);
console.log(crypto.createHash("sha256").update(out).digest("hex"), out.length);
