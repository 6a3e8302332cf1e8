package session

// Migration of old session files (v1 → v2 → v3), done exactly as pi does
// it: on parsed JavaScript objects, re-serialised with JSON.stringify, so
// new keys land at the end of each object and deleted keys vanish. The
// caller (Open) keeps the original as a backup and replaces the file
// atomically.

import (
	"bytes"
	"fmt"
	"math"
)

// migrationID draws the ids given to v1 entries; tests replace it.
var migrationID = NewEntryID

// migrate brings data (a file whose header version is below
// CurrentVersion) to the current version. hp holds the already parsed
// header (for its version); the result's migrated field is the new file.
func migrate(name string, data []byte, hp *parsed) (*parsed, error) {
	from := hp.header.Version
	var warnings []string
	var values []jsValue
	it := lineIter{data: data}
	for {
		line, _, terminated, ok := it.next()
		if !ok {
			break
		}
		if isBlank(line) {
			continue
		}
		v, err := parseJS(line)
		if err != nil {
			tmp := parsed{}
			tmp.warnBadLine(name, it.num, terminated, err)
			warnings = append(warnings, tmp.warnings...)
			continue
		}
		if v.kind != jsObject {
			warnings = append(warnings, fmt.Sprintf("%s line %d: not a JSON object, dropped by the migration", name, it.num))
			continue
		}
		values = append(values, v)
	}
	if from < 2 {
		migrateV1ToV2(values)
	}
	if from < 3 {
		migrateV2ToV3(values)
	}
	var out []byte
	for _, v := range values {
		out = appendJS(out, v)
		out = append(out, '\n')
	}
	// out is kept for the rewrite; parsing writes to its copy.
	p, err := parseData(name, bytes.Clone(out))
	if err != nil {
		return nil, fmt.Errorf("migrate %s from version %d: %w", name, from, err)
	}
	p.warnings = append(warnings, p.warnings...)
	p.warnings = append(p.warnings, fmt.Sprintf("%s: migrated from session format version %d to %d", name, from, CurrentVersion))
	p.migratedFrom = from
	p.migrated = out
	return p, nil
}

func typeOf(o *jsObj) string {
	if t, ok := o.get("type"); ok && t.kind == jsString {
		return t.str
	}
	return ""
}

// migrateV1ToV2 gives every entry an id and chains them linearly in file
// order; compaction.firstKeptEntryIndex (an index into all parsed lines,
// header included) becomes firstKeptEntryId.
func migrateV1ToV2(values []jsValue) {
	ids := map[string]bool{}
	exists := func(id string) bool { return ids[id] }
	prev := jsValue{} // null
	for _, v := range values {
		o := v.obj
		if typeOf(o) == TypeSession {
			o.set("version", jsNum(2))
			continue
		}
		id := migrationID(exists)
		ids[id] = true
		o.set("id", jsStr(id))
		o.set("parentId", prev)
		prev = jsStr(id)
		if typeOf(o) != TypeCompaction {
			continue
		}
		idx, ok := o.get("firstKeptEntryIndex")
		if !ok || idx.kind != jsNumber {
			continue
		}
		if i := idx.num; i >= 0 && i == math.Trunc(i) && i < float64(len(values)) {
			target := values[int(i)].obj
			if typeOf(target) != TypeSession {
				// A target after the compaction has no id yet: pi then
				// assigns undefined, which JSON.stringify leaves out.
				if tid, ok := target.get("id"); ok {
					o.set("firstKeptEntryId", tid)
				}
			}
		}
		o.del("firstKeptEntryIndex")
	}
}

// migrateV2ToV3 renames the hookMessage role to custom.
func migrateV2ToV3(values []jsValue) {
	for _, v := range values {
		o := v.obj
		switch typeOf(o) {
		case TypeSession:
			o.set("version", jsNum(3))
		case TypeMessage:
			if m, ok := o.get("message"); ok && m.kind == jsObject {
				if r, ok := m.obj.get("role"); ok && r.kind == jsString && r.str == "hookMessage" {
					m.obj.set("role", jsStr(RoleCustom))
				}
			}
		}
	}
}
