package cmdutil

// Nearest returns the candidate closest to name by edit distance (each
// insertion, deletion, substitution or swap of two neighbours counts
// one), or "" when none is within maxDistance. Ties go to the earlier
// candidate.
func Nearest(name string, candidates []string, maxDistance int) string {
	best, bestD := "", maxDistance+1
	for _, c := range candidates {
		if abs(len(c)-len(name)) >= bestD {
			continue // the distance is at least the difference in length
		}
		if d := editDistance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// abs is the absolute value of n.
func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
