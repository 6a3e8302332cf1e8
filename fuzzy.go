package main

// Fuzzy matching of short queries against names, as pi's fuzzyFilter
// (pi-tui): every character of a word in order, rewarding consecutive
// characters and word starts.

import "strings"

// fuzzyScore reports whether query's characters occur in text in order
// (ignoring case) and how well: lower is better.
func fuzzyScore(query, text string) (float64, bool) {
	q, t := []rune(strings.ToLower(query)), []rune(strings.ToLower(text))
	if len(q) == 0 {
		return 0, true
	}
	if len(q) > len(t) {
		return 0, false
	}
	qi, last, run := 0, -1, 0
	score := 0.0
	for i := 0; i < len(t) && qi < len(q); i++ {
		if t[i] != q[qi] {
			continue
		}
		if last == i-1 {
			run++
			score -= float64(run * 5)
		} else {
			run = 0
			if last >= 0 {
				score += float64((i - last - 1) * 2)
			}
		}
		if i == 0 || strings.ContainsRune(" -_./:", t[i-1]) {
			score -= 10
		}
		score += float64(i) * 0.1
		last = i
		qi++
	}
	return score, qi == len(q)
}

// fuzzyMatches reports whether text matches every word of query, and
// their summed score (lower is better).
func fuzzyMatches(query, text string) (float64, bool) {
	total := 0.0
	for _, w := range strings.Fields(query) {
		s, ok := fuzzyScore(w, text)
		if !ok {
			return 0, false
		}
		total += s
	}
	return total, true
}
