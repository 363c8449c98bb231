#include "perfpred/core/dtype.hpp"

namespace perfpred {

int64_t dtype_size(DType t) {
  switch (t) {
    case DType::f64: case DType::i64: case DType::u64: return 8;
    case DType::f32: case DType::i32: case DType::u32: return 4;
    case DType::f16: case DType::bf16: case DType::i16: case DType::u16: return 2;
    case DType::i8: case DType::u8: case DType::boolean: case DType::f8: return 1;
    case DType::unknown: case DType::string: case DType::i4: case DType::u4: case DType::f4: case DType::i2:
    case DType::u2:
      return 0;
  }
  return 0;
}

int64_t dtype_bits(DType t) {
  if (t == DType::i4 || t == DType::u4 || t == DType::f4) return 4;
  if (t == DType::i2 || t == DType::u2) return 2;
  return 8 * dtype_size(t);
}

std::string to_string(DType t) {
  switch (t) {
    case DType::unknown: return "unknown";
    case DType::f32: return "float32";
    case DType::f16: return "float16";
    case DType::bf16: return "bfloat16";
    case DType::f64: return "float64";
    case DType::i8: return "int8";
    case DType::u8: return "uint8";
    case DType::i16: return "int16";
    case DType::u16: return "uint16";
    case DType::i32: return "int32";
    case DType::u32: return "uint32";
    case DType::i64: return "int64";
    case DType::u64: return "uint64";
    case DType::boolean: return "bool";
    case DType::string: return "string";
    case DType::f8: return "float8";
    case DType::i4: return "int4";
    case DType::u4: return "uint4";
    case DType::f4: return "float4";
    case DType::i2: return "int2";
    case DType::u2: return "uint2";
  }
  return "unknown";
}

DType dtype_from_string(std::string_view s) {
  for (DType t : {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i8, DType::u8, DType::i16, DType::u16,
                  DType::i32, DType::u32, DType::i64, DType::u64, DType::boolean, DType::string, DType::f8, DType::i4,
                  DType::u4, DType::f4, DType::i2, DType::u2})
    if (to_string(t) == s) return t;
  return DType::unknown;
}

DType dtype_from_onnx(int32_t code) {
  // TensorProto::DataType numbering from onnx.proto.
  switch (code) {
    case 1: return DType::f32;
    case 2: return DType::u8;
    case 3: return DType::i8;
    case 4: return DType::u16;
    case 5: return DType::i16;
    case 6: return DType::i32;
    case 7: return DType::i64;
    case 8: return DType::string;
    case 9: return DType::boolean;
    case 10: return DType::f16;
    case 11: return DType::f64;
    case 12: return DType::u32;
    case 13: return DType::u64;
    case 16: return DType::bf16;
    case 17: case 18: case 19: case 20: return DType::f8;
    case 21: return DType::u4;
    case 22: return DType::i4;
    case 23: return DType::f4;
    case 24: return DType::f8;  // float8e8m0, the MX formats' shared scale
    case 25: return DType::u2;
    case 26: return DType::i2;
    default: return DType::unknown;
  }
}

}  // namespace perfpred
