// The trellis encoder's block search on the device (trellis.Searcher, for `quantize --device cuda`): viterbi.cu's
// kernels, one per (K, L), each a persistent grid over a batch of coded blocks. Only the search runs here; the
// scales, the packing, the refit and LDLQ stay in package trellis, in the code the CPU runs, so the codes are the
// CPU encoder's bit for bit (viterbi.cu's promise). A spec the kernels do not serve goes to trellis.CPU.

package cuda

import (
	"fmt"
	"unsafe"

	"github.com/mlxbun/mlxbun/internal/cuda/driver"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

var _ trellis.SpecSearcher = (*Backend)(nil)

// The instantiated specs: k 2, 3, 4 (the widths quantize makes) and L 12..16, code 1mad; the kernel also needs
// L ≥ 2k, which these satisfy.
var viterbiKs = []int{2, 3, 4}

const (
	viterbiMinL, viterbiMaxL = 12, 16
	// viterbiBatch bounds the weights of one launch: their f32 input and u16 states on the device (6 bytes a
	// weight, 96 MiB), however many the caller hands over.
	viterbiBatch = 1 << 24
	// smThreads and smRegs are an sm_90 multiprocessor's resident thread and register limits, for sizing the
	// persistent grid (an overestimate only queues blocks; it never changes the codes).
	smThreads, smRegs = 2048, 65536
)

// viterbiName names the search kernel for k and L (instantiation and launch).
func viterbiName(K, L int) string { return fmt.Sprintf("viterbi_k%d_l%d", K, L) }

// viterbiThreads is the thread count of one coded block's search: 2^L/16 (16 states a thread, whose code values
// then stay in registers) within 32..1024, and at most the 2^(L−K) successor groups each thread steps.
func viterbiThreads(K, L int) int {
	return min(1<<(L-K), max(32, min(1024, (1<<L)/16)))
}

// viterbiCodeTable says whether the kernel for k and L reads its code values from the shared table (viterbi.cu's
// VIT_CODES: its threads own more than 16 states each) rather than holding them in registers.
func viterbiCodeTable(K, L int) bool { return (1<<L)/viterbiThreads(K, L) > 16 }

// viterbiTableBytes is the shared code table: 1021 code values, 32 interleaved copies of f32.
const viterbiTableBytes = 1021 * 32 * 4

// viterbiSmem is the dynamic shared memory of a search of blocks of T: the code table where the kernel reads one,
// the warps' argmin keys, the step's group minima, the block's weights and its path.
func viterbiSmem(K, L, T int) int {
	tbl := 0
	if viterbiCodeTable(K, L) {
		tbl = viterbiTableBytes
	}
	return tbl + 8*(viterbiThreads(K, L)/32) + 4*(1<<(L-K)) + 8*T
}

// viterbiBPWords is one thread block's backpointer scratch in u32 words: T steps of one word a thread (its
// groups' winning predecessor indices, K bits each).
func viterbiBPWords(K, L, T int) int { return T * viterbiThreads(K, L) }

// viterbiInstantiations lists viterbi.cu's VITERBI lines.
func viterbiInstantiations() []string {
	var out []string
	for _, k := range viterbiKs {
		for L := viterbiMinL; L <= viterbiMaxL; L++ {
			out = append(out, fmt.Sprintf("VITERBI(%s, %d, %d, %d)", viterbiName(k, L), k, L, viterbiThreads(k, L)))
		}
	}
	return out
}

// viterbiSupports says why the kernels cannot search spec's blocks with maxShared bytes of shared memory per
// block, or nil.
func viterbiSupports(spec trellis.Spec, maxShared int) error {
	if spec.Code != "1mad" || spec.K < viterbiKs[0] || spec.K > viterbiKs[len(viterbiKs)-1] || spec.L < viterbiMinL || spec.L > viterbiMaxL {
		return fmt.Errorf("no search kernel for code %s, k %d, L %d (k %d..%d, L %d..%d, 1mad)", spec.Code, spec.K, spec.L,
			viterbiKs[0], viterbiKs[len(viterbiKs)-1], viterbiMinL, viterbiMaxL)
	}
	if spec.T < 2 || spec.T%2 != 0 {
		return fmt.Errorf("blocks of %d positions (the search needs an even T ≥ 2)", spec.T)
	}
	if s := viterbiSmem(spec.K, spec.L, spec.T); s > maxShared {
		return fmt.Errorf("blocks of %d positions need %d bytes of shared memory, over the device's %d", spec.T, s, maxShared)
	}
	return nil
}

// viterbiGrid is the persistent grid for nblocks coded blocks: as many thread blocks of nt threads as the
// device holds at once (per multiprocessor: threads, registers at regs a thread in warp units of 256, shared
// memory with 1 KiB reserved a block, at most 32 blocks), never more than nblocks.
func viterbiGrid(nblocks, nt, regs, smem int, info driver.Info) int {
	perSM := min(smThreads/nt, 32)
	if regs > 0 {
		perSM = min(perSM, smRegs/(((regs*32+255)/256*256)*(nt/32)))
	}
	perSM = min(perSM, (info.MaxSharedPerBlock+1024)/(smem+1024))
	return max(1, min(nblocks, max(1, perSM)*max(1, info.SMs)))
}

// SupportsSearch implements trellis.SpecSearcher: nil for a spec the kernels search on this device (the ones
// SearchBlocks does not hand to trellis.CPU).
func (b *Backend) SupportsSearch(spec trellis.Spec) error {
	return viterbiSupports(spec, b.info.MaxSharedPerBlock)
}

// SearchBlocks implements trellis.Searcher on the device: batches of at most viterbiBatch weights, each one
// launch between a copy in and a copy out. Specs viterbiSupports refuses are searched by trellis.CPU.
func (b *Backend) SearchBlocks(spec trellis.Spec, x []float32, states []uint32) error {
	if err := trellis.CheckBatch(spec, x, states); err != nil {
		return err
	}
	if err := viterbiSupports(spec, b.info.MaxSharedPerBlock); err != nil {
		b.logf("viterbi: %v; searching on the CPU", err)
		return trellis.CPU.SearchBlocks(spec, x, states)
	}
	if len(x) == 0 {
		return nil
	}
	if err := b.syncFlush(); err != nil {
		return err
	}
	K, L, T := spec.K, spec.L, spec.T
	name := viterbiName(K, L)
	nt, smem := viterbiThreads(K, L), viterbiSmem(K, L, T)
	nb := len(x) / T
	per := max(1, min(nb, viterbiBatch/T))
	var regs int
	err := b.dev.Do(func() error {
		f, err := b.fn(name)
		if err != nil {
			return err
		}
		if smem > 48<<10 {
			if err := f.SetMaxDynamicShared(smem); err != nil {
				return err
			}
		}
		regs, err = f.Attr(driver.FuncNumRegs)
		return err
	})
	if err != nil {
		return fmt.Errorf("cuda viterbi: %w", err)
	}
	grid := viterbiGrid(per, nt, regs, smem, b.info)
	xd, xc, err := b.allocCached(4 * per * T)
	if err != nil {
		return fmt.Errorf("cuda viterbi: %w", err)
	}
	defer b.mem.put(xd, xc)
	sd, sc, err := b.allocCached(2 * per * T)
	if err != nil {
		return fmt.Errorf("cuda viterbi: %w", err)
	}
	defer b.mem.put(sd, sc)
	bpd, bpc, err := b.allocCached(4 * grid * viterbiBPWords(K, L, T))
	if err != nil {
		return fmt.Errorf("cuda viterbi: %w", err)
	}
	defer b.mem.put(bpd, bpc)
	b.logf("viterbi %s: %d blocks of %d in batches of %d, grid %d×%d, %d registers, %d bytes shared", name, nb, T, per, grid, nt, regs, smem)
	st16 := make([]uint16, per*T)
	for j0 := 0; j0 < nb; j0 += per {
		n := min(per, nb-j0)
		g := min(grid, n)
		err := b.dev.Do(func() error {
			if err := b.stream.MemcpyHtoDAsync(xd, unsafe.Pointer(&x[j0*T]), 4*n*T); err != nil {
				return err
			}
			args := driver.NewArgs().Ptr(xd).Ptr(sd).Ptr(bpd).I32(int32(T)).I32(int32(n))
			if err := b.launch(name, driver.Dim3{X: g}, driver.Dim3{X: nt}, smem, args, float64(6*n*T)); err != nil {
				return err
			}
			if err := b.stream.MemcpyDtoHAsync(unsafe.Pointer(&st16[0]), sd, 2*n*T); err != nil {
				return err
			}
			return b.waitStream()
		})
		if err != nil {
			return fmt.Errorf("cuda viterbi: blocks %d..%d: %w", j0, j0+n-1, err)
		}
		for i, s := range st16[:n*T] {
			states[j0*T+i] = uint32(s)
		}
	}
	return nil
}
