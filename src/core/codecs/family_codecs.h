#pragma once

#include <memory>

#include "codecs/codec.h"

namespace tsr {

std::unique_ptr<FamilyCodec> make_elementwise_codec();
std::unique_ptr<FamilyCodec> make_matmul_codec();
std::unique_ptr<FamilyCodec> make_rowwise_codec();
std::unique_ptr<FamilyCodec> make_attention_codec();

}  // namespace tsr
