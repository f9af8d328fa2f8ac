// Systems without O_NONBLOCK (Windows, Plan 9, wasm) have no named pipes to block on in a model directory.

//go:build !unix

package userfile

const nonBlock = 0
