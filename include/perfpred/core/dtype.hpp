#pragma once
/// Tensor element types, named as ONNX names them.
#include <cstdint>
#include <string>
#include <string_view>

namespace perfpred {

/// Element type of a tensor. `unknown` when the model does not say.
/// f8 is any of ONNX's 8-bit floats (float8e4m3fn/fnuz, e5m2/fnuz, and opset 24's e8m0 scale type); i4, u4
/// and f4 (float4e2m1) are its 4-bit types (opsets 21 and 23), packed two to a byte; i2 and u2 its 2-bit
/// types (opsets 25 and 26), four to a byte.
enum class DType {
  unknown, f32, f16, bf16, f64, i8, u8, i16, u16, i32, u32, i64, u64, boolean, string, f8, i4, u4, f4, i2, u2
};

/// Size of one element in bytes (0 for unknown and string, and for the 4- and 2-bit types: see dtype_bits).
int64_t dtype_size(DType t);
/// Size of one element in bits (4 and 2 for the sub-byte types; 0 for unknown and string).
int64_t dtype_bits(DType t);
/// Lower-case name: "float32", "float16", "bfloat16", "int64", ...
std::string to_string(DType t);
/// Inverse of to_string; DType::unknown for anything else.
DType dtype_from_string(std::string_view s);
/// Map an ONNX TensorProto::DataType code to DType.
DType dtype_from_onnx(int32_t code);

}  // namespace perfpred
