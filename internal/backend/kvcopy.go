// Copying one sequence's cached context into another cache, or into another sequence of the same cache: what a
// prompt cache needs to keep a finished request's keys and values (and a hybrid model's recurrent state) beside
// the running batch and to hand them to a later request that starts with the same tokens. Both interfaces are
// optional; a backend without them serves no prompt cache beyond reusing what a sequence's own slot still holds.
package backend

// KVCopier copies cached keys and values between caches the backend made.
type KVCopier interface {
	// CopyKV copies positions [0, n) of sequence srcSeq of src into sequence dstSeq of dst, every layer. The caches
	// have the same layer geometry (their KVConfig may differ in Seqs and MaxLen); n ≤ dst's MaxLen. A layer
	// keeping a ring of Window slots needs only the positions of [n−Window, n) in dst, and src must still hold
	// them; dst's other slots of that sequence are marked empty. What dst held past n for that sequence is left
	// as it is (a later row overwrites a position before any row reads it).
	CopyKV(dst KVCache, dstSeq int, src KVCache, srcSeq, n int) error
}

// StateCopier copies recurrent state (hybrid models' DeltaNet layers) between states the backend made.
type StateCopier interface {
	// CopyState copies sequence srcSeq's state of every layer of src into sequence dstSeq of dst; the two have the
	// same RecurrentConfig but Seqs.
	CopyState(dst RecurrentState, dstSeq int, src RecurrentState, srcSeq int) error
}
