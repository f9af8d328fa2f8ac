// DFA minimization (Hopcroft) for the compiled rules.
package grammar

// minimize merges equivalent states with Hopcroft's partition refinement, O(k·n·log n) for n states and k letters
// (the byte classes and one letter per pushed rule). Missing transitions go to an explicit dead state, so states
// from which no end is reachable merge with it and disappear. The start stays state 0.
func minimize(states []dstate, nclass int) []dstate {
	n := len(states)
	dead := int32(n)
	// Letters: byte classes, then each pushed rule.
	refLetter := map[int32]int{}
	for _, s := range states {
		for _, r := range s.refs {
			if _, ok := refLetter[r.rule]; !ok {
				refLetter[r.rule] = nclass + len(refLetter)
			}
		}
	}
	k := nclass + len(refLetter)
	delta := func(q int32, a int) int32 {
		if q == dead {
			return dead
		}
		s := &states[q]
		if a < nclass {
			if s.next == nil || s.next[a] < 0 {
				return dead
			}
			return s.next[a]
		}
		for _, r := range s.refs {
			if refLetter[r.rule] == a {
				return r.to
			}
		}
		return dead
	}
	// Inverse transitions per letter in CSR form: sources of t under a are src[a][off[a][t]:off[a][t+1]].
	total := n + 1
	off := make([][]int32, k)
	src := make([][]int32, k)
	for a := range k {
		cnt := make([]int32, total+1)
		for q := range int32(total) {
			cnt[delta(q, a)+1]++
		}
		for i := 1; i <= total; i++ {
			cnt[i] += cnt[i-1]
		}
		off[a] = cnt
		fill := append([]int32(nil), cnt[:total]...)
		src[a] = make([]int32, total)
		for q := range int32(total) {
			t := delta(q, a)
			src[a][fill[t]] = q
			fill[t]++
		}
	}
	// Partition: blocks are ranges of elems; blockOf and pos index it.
	elems := make([]int32, 0, total)
	var bstart, bend []int32
	blockOf := make([]int32, total)
	pos := make([]int32, total)
	addBlock := func(members []int32) {
		b := int32(len(bstart))
		bstart = append(bstart, int32(len(elems)))
		for _, q := range members {
			blockOf[q] = b
			pos[q] = int32(len(elems))
			elems = append(elems, q)
		}
		bend = append(bend, int32(len(elems)))
	}
	var acc, rej []int32
	for q := range int32(n) {
		if states[q].accept {
			acc = append(acc, q)
		} else {
			rej = append(rej, q)
		}
	}
	rej = append(rej, dead)
	if len(acc) > 0 {
		addBlock(acc)
	}
	addBlock(rej)
	// Worklist of (block, letter) splitters; inW[b*k+a] says whether one is queued. Blocks never exceed the
	// states, so the flags are allocated once.
	type splitter struct{ b, a int32 }
	var work []splitter
	inW := make([]bool, total*k)
	push := func(b int32, a int) {
		if !inW[int(b)*k+a] {
			inW[int(b)*k+a] = true
			work = append(work, splitter{b, int32(a)})
		}
	}
	// Hopcroft's start: one of the two blocks splits on every letter; block 0, the accepting states when there
	// are any, which lacks the dead state (see the split below).
	first := int32(0)
	for a := range k {
		push(first, a)
	}
	marked := make([]int32, 0, total)
	isMarked := make([]bool, total)
	var touched []int32
	markCount := make([]int32, total) // per block: how many of its elements are marked (moved to its front)
	for len(work) > 0 {
		sp := work[len(work)-1]
		work = work[:len(work)-1]
		inW[int(sp.b)*k+int(sp.a)] = false
		a := sp.a
		// Mark every state whose a-successor is in block sp.b.
		marked = marked[:0]
		for i := bstart[sp.b]; i < bend[sp.b]; i++ {
			t := elems[i]
			for _, q := range src[a][off[a][t]:off[a][t+1]] {
				if !isMarked[q] {
					isMarked[q] = true
					marked = append(marked, q)
				}
			}
		}
		touched = touched[:0]
		for _, q := range marked {
			b := blockOf[q]
			c := markCount[b]
			if c == 0 {
				touched = append(touched, b)
			}
			// Move q to the front part of its block (the first c elements are the marked ones).
			j := bstart[b] + c
			other := elems[j]
			elems[j], elems[pos[q]] = q, other
			pos[other], pos[q] = pos[q], j
			markCount[b] = c + 1
		}
		for _, b := range touched {
			c := markCount[b]
			markCount[b] = 0
			if c == bend[b]-bstart[b] {
				continue // the whole block: no split
			}
			// Split off the marked front part as a new block.
			nb := int32(len(bstart))
			bstart = append(bstart, bstart[b])
			bend = append(bend, bstart[b]+c)
			bstart[b] += c
			for i := bstart[nb]; i < bend[nb]; i++ {
				blockOf[elems[i]] = nb
			}
			// Either half may be queued (Hopcroft needs one of the two): the smaller, unless it holds the dead
			// state, whose preimage is every state missing the letter and would make each split cost O(n).
			small := nb
			if bend[b]-bstart[b] < c {
				small = b
			}
			if blockOf[dead] == small {
				small = nb + b - small
			}
			for l := range k {
				if inW[int(b)*k+l] {
					push(nb, l)
				} else {
					push(small, l)
				}
			}
		}
		for _, q := range marked {
			isMarked[q] = false
		}
	}
	// Renumber: the start's block first, the dead block dropped.
	id := make([]int32, len(bstart))
	for i := range id {
		id[i] = -1
	}
	deadBlock := blockOf[dead]
	var order []int32 // representative state per new id
	var visit func(q int32)
	queue := []int32{0}
	id[blockOf[0]] = 0
	order = append(order, 0)
	_ = visit
	for i := 0; i < len(queue); i++ {
		q := queue[i]
		for a := range k {
			t := delta(q, a)
			b := blockOf[t]
			if b == deadBlock || id[b] >= 0 {
				continue
			}
			id[b] = int32(len(order))
			order = append(order, t)
			queue = append(queue, t)
		}
	}
	out := make([]dstate, len(order))
	for i, q := range order {
		s := states[q]
		d := dstate{accept: s.accept}
		for c := range nclass {
			t := delta(q, c)
			if blockOf[t] == deadBlock {
				continue
			}
			if d.next == nil {
				d.next = make([]int32, nclass)
				for j := range d.next {
					d.next[j] = -1
				}
			}
			d.next[c] = id[blockOf[t]]
		}
		for _, r := range s.refs {
			if blockOf[r.to] != deadBlock {
				d.refs = append(d.refs, refEdge{rule: r.rule, to: id[blockOf[r.to]]})
			}
		}
		out[i] = d
	}
	if blockOf[0] == deadBlock {
		// The rule matches nothing: keep a lone non-accepting start so that check reports it.
		return []dstate{{}}
	}
	return out
}
