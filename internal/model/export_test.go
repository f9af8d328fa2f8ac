package model

// FullKV makes m's caches keep every position of its sliding-window layers (attention still masked by the
// window): the reference the ring caches are checked against.
func FullKV(m *Model) { m.fullKV = true }
