// Dev-time generator: doubles and strings as JSON.stringify writes them.
const lines = [];
const buf = new DataView(new ArrayBuffer(8));
function add(x) {
  buf.setFloat64(0, x);
  const hex = [...Array(8).keys()].map(i => buf.getUint8(i).toString(16).padStart(2, "0")).join("");
  lines.push(hex + " " + JSON.stringify(x));
}
const special = [0, -0, 1, -1, 0.1, 0.2, 0.1+0.2, 0.000123, 1e-7, 1e-6, 1.5e-7, 123e-20, 1e21, 1e20, 1.5e21, 123456789012345680000,
  2**53, 2**53+2, -(2**53), 2**63, 5e-324, 1.7976931348623157e308, NaN, Infinity, -Infinity, 0.0034950000000000003,
  3.0000000000000004, 100, 1e100, 1.2345e-5, 9.999999999999999e20, 999999999999999900000, 0.000001, 0.0000012345, 4.35, 0.5];
special.forEach(add);
let seed = 42;
function rnd() { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; }
for (let i = 0; i < 3000; i++) {
  // random bit patterns
  for (let j = 0; j < 8; j++) buf.setUint8(j, Math.floor(rnd() * 256));
  add(buf.getFloat64(0));
}
for (let i = 0; i < 3000; i++) {
  const mag = Math.floor(rnd() * 60) - 30;
  add((rnd() - 0.5) * Math.pow(10, mag));
  add(Math.round(rnd() * 1e6) / Math.pow(10, Math.floor(rnd() * 12)));
}
require("fs").writeFileSync(process.argv[2], lines.join("\n") + "\n");
// strings: input as JSON text with escapes for everything non-printable, output JSON.stringify
const strs = [];
const samples = [];
for (let c = 0; c < 0x80; c++) samples.push(String.fromCharCode(c));
samples.push("\u2028", "\u2029", "\ud800", "\udc00", "\ud83d\ude00", "a\ud800b", "\udfff\ud800", "<>&", "é", "\u00e9\u0301", "\ufeff", "\u007f\u0080\u009f", "\\\"/");
for (const s of samples) {
  let esc = '"';
  for (let i = 0; i < s.length; i++) esc += "\\u" + s.charCodeAt(i).toString(16).padStart(4, "0");
  esc += '"';
  strs.push(esc + "\t" + JSON.stringify(s));
}
require("fs").writeFileSync(process.argv[3], strs.join("\n") + "\n");
