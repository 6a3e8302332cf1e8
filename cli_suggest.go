package main

// "Did you mean": the nearest of a set of names to a mistyped one, for
// flags, subcommands and config keys alike.

// nearestName is the name closest to typed within a distance that reads
// as a typo (two edits, or a third of typed's length); of two as near,
// the one closer in length. A name that typed starts (three letters or
// more) counts as one edit away.
func nearestName(typed string, names []string) (string, bool) {
	best, bestDist, bestLen := "", 0, 0
	for _, n := range names {
		d := editDistance(typed, n)
		if len(typed) >= 3 && len(n) > len(typed) && n[:len(typed)] == typed {
			d = 1
		}
		l := abs(len(n) - len(typed))
		if best == "" || d < bestDist || d == bestDist && l < bestLen {
			best, bestDist, bestLen = n, d, l
		}
	}
	return best, best != "" && bestDist <= max(2, len(typed)/3)
}

// subcommandTypo is the subcommand a lone prompt word is one edit away
// from ("sesions" → "sessions"); a word that is a subcommand's name is
// no typo.
func subcommandTypo(args []string) (string, bool) {
	if len(args) != 1 {
		return "", false
	}
	w := args[0]
	for _, s := range subcommands {
		if w != s && editDistance(w, s) == 1 {
			return s, true
		}
	}
	return "", false
}
