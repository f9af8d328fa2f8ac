package backend

// The op LoRA adapters add beside MatMul (internal/model/lora.go): a projection with adapters computes
// y = W·x + Σ sᵢ·Bᵢ(Aᵢ·x), the two small products as plain MatMuls over dense linears A [r, in] and B [out, r],
// and the scaled sum as this op. The model asks for it (Query.Name: the first adapted projection) before loading.

// OpAddScaled is ScaledAdder.AddScaled.
const OpAddScaled Op = "add_scaled"

// ScaledAdder: dst = a + f32(s·b) elementwise, the product rounded to float32 before the sum (no fused
// multiply-add), as PEFT's `result + lora_B(lora_A(x)) * scaling` and mlx-lm's `y + scale * z` compute it in
// float32. dst may alias a or b. Unfused equivalent: Scaler.Scale(b, b, s) then Add(dst, a, b).
type ScaledAdder interface {
	AddScaled(dst, a, b Tensor, s float32)
}
