package lua

// Name checks for what hooks register or require. Written out rather than
// as regular expressions: those would be compiled at every start, in every
// process, hooks or not (names_test.go checks them against the patterns).

// nameByte is [A-Za-z0-9_-].
func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// validToolName is ^[A-Za-z0-9_-]{1,64}$ (what the providers accept).
func validToolName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i]) {
			return false
		}
	}
	return true
}

// validCommandName is ^[A-Za-z0-9][A-Za-z0-9_:.-]*$.
func validCommandName(s string) bool {
	if len(s) == 0 || s[0] == '_' || s[0] == '-' || !nameByte(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !nameByte(c) && c != ':' && c != '.' {
			return false
		}
	}
	return true
}

// validLibName is ^[A-Za-z0-9_][A-Za-z0-9_-]*(\.[A-Za-z0-9_][A-Za-z0-9_-]*)*$:
// dot-separated parts, none empty, none starting with '-'.
func validLibName(s string) bool {
	start := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && !start:
			start = true
		case start && nameByte(c) && c != '-':
			start = false
		case !start && nameByte(c):
		default:
			return false
		}
	}
	return !start
}
