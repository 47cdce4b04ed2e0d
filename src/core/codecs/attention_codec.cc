// attention: O = softmax(mask(softcap(scale·Q·Kᵀ) + alibi)) · V per batch and
// query head, with grouped KV heads (MHA, GQA, MQA), a causal and/or sliding
// window mask aligned bottom-right, and an optional log-sum-exp output.
#include <cmath>

#include "codecs/family_codecs.h"
#include "codecs/limits.h"

namespace tsr {
namespace {

// Head dimensions the emitters compile for: multiples of 8 (every target's
// vector width divides them) up to 256, as FlashAttention-2 supports.
constexpr int64_t kMaxHeadDim = 256;

const std::vector<std::string> kShapeKeys = {"batch", "q_heads", "kv_heads", "q_len", "kv_len", "head_dim", "v_head_dim"};

class AttentionCodec final : public FamilyCodec {
 public:
  Family family() const override { return Family::attention; }
  int version() const override { return 1; }
  std::vector<std::string> keys() const override {
    return {"accumulate", "layout", "shape", "mask", "scale", "softcap", "alibi", "lse"};
  }

  bool decode(const MapReader& m, KernelSpec& spec) const override {
    const size_t errors_before = m.diag().error_count();
    decode_accumulate(m, spec);
    AttentionSpec body;
    if (auto layout = m.required_enum("layout", {"bshd", "bhsd"}, "attention layout"))
      body.layout = *layout == "bshd" ? AttentionLayout::bshd : AttentionLayout::bhsd;
    decode_shape(m, body);
    decode_mask(m, body);
    decode_scale(m, body);
    decode_softcap(m, body);
    if (auto alibi = m.required_bool("alibi")) body.alibi = *alibi;
    if (auto lse = m.required_bool("lse")) body.lse = *lse;
    spec.body = body;
    if (m.diag().error_count() == errors_before)
      check_shape_against_abi(m, spec,
                              {{"batch", body.batch}, {"q_heads", body.q_heads}, {"kv_heads", body.kv_heads},
                               {"q_len", body.q_len}, {"kv_len", body.kv_len}, {"head_dim", body.head_dim},
                               {"v_head_dim", body.v_head_dim}});
    return m.diag().error_count() == errors_before;
  }

  void encode(const KernelSpec& spec, CanonicalWriter& out) const override {
    const AttentionSpec& a = spec.attention();
    out.field("accumulate");
    out.str(dtype_name(*spec.accumulate));
    out.field("layout"); out.str(attention_layout_name(a.layout));
    out.field("batch"); out.dim(a.batch);
    out.field("q_heads"); out.dim(a.q_heads);
    out.field("kv_heads"); out.dim(a.kv_heads);
    out.field("q_len"); out.dim(a.q_len);
    out.field("kv_len"); out.dim(a.kv_len);
    out.field("head_dim"); out.dim(a.head_dim);
    out.field("v_head_dim"); out.dim(a.v_head_dim);
    out.field("causal"); out.u64(a.causal ? 1 : 0);
    out.field("window"); out.u64(a.window ? 1 : 0);
    if (a.window) { out.i64(a.window->left); out.i64(a.window->right); }
    out.field("scale"); out.u64(a.scale_default ? 1 : 0); out.f64(a.scale);
    out.field("softcap"); out.u64(a.softcap ? 1 : 0);
    if (a.softcap) out.f64(*a.softcap);
    out.field("alibi"); out.u64(a.alibi ? 1 : 0);
    out.field("lse"); out.u64(a.lse ? 1 : 0);
  }

 private:
  static void decode_shape(const MapReader& m, AttentionSpec& body) {
    const DocNode* shape = m.map_value("shape", true);
    if (!shape) return;
    MapReader s(*shape, m.file(), "attention shape", m.diag());
    s.check_keys(kShapeKeys);
    Dim* dims[] = {&body.batch, &body.q_heads, &body.kv_heads, &body.q_len, &body.kv_len, &body.head_dim,
                   &body.v_head_dim};
    bool heads_ok = true;
    for (size_t i = 0; i < kShapeKeys.size(); ++i) {
      const std::string& key = kShapeKeys[i];
      std::optional<Dim> d = decode_shape_dim(s, key);
      if (!d) { heads_ok = false; continue; }
      *dims[i] = *d;
      const bool heads = key == "q_heads" || key == "kv_heads";
      const bool head_dim = key == "head_dim" || key == "v_head_dim";
      if ((heads || head_dim) && !d->is_static()) {
        s.error(s.get(key), "'" + key + "' must be a static extent, got the runtime name '" + d->name + "' (" +
                                (heads ? "the kernel maps query heads to KV heads at build time and has no way to "
                                         "refuse a launch whose head counts do not divide"
                                       : "the kernels are compiled for one head dimension") + ")");
        heads_ok = heads_ok && !heads;
        continue;
      }
      if (head_dim && (d->value % 8 != 0 || d->value > kMaxHeadDim))
        s.error(s.get(key), "'" + key + "' is " + std::to_string(d->value) + "; it must be a multiple of 8 from 8 to " +
                                std::to_string(kMaxHeadDim));
    }
    if (heads_ok && body.q_heads.value % body.kv_heads.value != 0)
      s.error(s.get("kv_heads"), "'q_heads' (" + std::to_string(body.q_heads.value) +
                                     ") must be a multiple of 'kv_heads' (" + std::to_string(body.kv_heads.value) +
                                     "): each KV head serves q_heads / kv_heads query heads");
  }

  // `none`, `causal`, or {causal: BOOL, window: none | {left: N, right: N}}.
  static void decode_mask(const MapReader& m, AttentionSpec& body) {
    const DocNode* mask = m.require("mask");
    if (!mask) return;
    if (mask->is_scalar()) {
      if (mask->text == "none") return;
      if (mask->text == "causal") { body.causal = true; return; }
      m.error(mask, unknown_value_message("mask", mask->text, {"none", "causal", "{causal: ..., window: ...}"}));
      return;
    }
    if (!mask->is_map()) {
      m.error(mask, wrong_type_message("'none', 'causal' or a map {causal, window}", "mask", describe_node(*mask)));
      return;
    }
    MapReader k(*mask, m.file(), "'mask'", m.diag());
    k.check_keys({"causal", "window"});
    if (auto causal = k.required_bool("causal")) body.causal = *causal;
    const DocNode* window = k.require("window");
    if (!window) return;
    if (window->is_scalar() && window->text == "none") return;
    if (!window->is_map()) {
      k.error(window, wrong_type_message("'none' or a map {left, right}", "window", describe_node(*window)));
      return;
    }
    MapReader w(*window, m.file(), "'window'", m.diag());
    w.check_keys({"left", "right"});
    AttentionWindow win;
    bool ok = true;
    for (const char* side : {"left", "right"}) {
      std::optional<int64_t> v = w.required_int(side);
      if (!v) { ok = false; continue; }
      if (*v < 0 || *v > kMaxStaticElements) {
        w.error(w.get(side), std::string("window '") + side + "' is " + w.get(side)->text +
                                 "; it must be from 0 to 2^48 (keys that far from the diagonal)");
        ok = false;
        continue;
      }
      (std::string(side) == "left" ? win.left : win.right) = *v;
    }
    if (!ok) return;
    if (body.causal && win.right != 0) {
      w.error(w.get("right"), "window 'right' is " + w.get("right")->text +
                                  " with causal: true; causal already excludes every key right of the diagonal, so "
                                  "'right' must be 0");
      return;
    }
    body.window = win;
  }

  // `key`: the word `keyword` (*keyword_given) or a constant positive in f32;
  // nullopt for the word or after an error. `allowed` ends the error message.
  static std::optional<double> keyword_or_positive(const MapReader& m, const std::string& key,
                                                   const std::string& keyword, const std::string& allowed,
                                                   bool* keyword_given) {
    *keyword_given = false;
    const DocNode* node = m.require(key);
    if (!node) return std::nullopt;
    if (node->is_scalar() && node->text == keyword) {
      *keyword_given = true;
      return std::nullopt;
    }
    std::optional<double> v = decode_f32_constant(m, key, true);
    if (!v) return std::nullopt;
    if (!(*v > 0.0) || static_cast<float>(*v) == 0.0f) {
      m.error(node, "'" + key + "' is " + node->text + "; it must be " + allowed);
      return std::nullopt;
    }
    return static_cast<float>(*v);
  }

  static void decode_scale(const MapReader& m, AttentionSpec& body) {
    std::optional<double> v = keyword_or_positive(m, "scale", "default", "'default' (1/sqrt(head_dim)) or positive in f32",
                                                  &body.scale_default);
    if (v) body.scale = *v;
    if (!body.scale_default) return;
    // The f32 the kernels multiply by (head_dim is static; 1 if it failed to decode).
    const double d = body.head_dim.is_static() && body.head_dim.value > 0 ? static_cast<double>(body.head_dim.value) : 1.0;
    body.scale = static_cast<float>(1.0 / std::sqrt(d));
  }

  static void decode_softcap(const MapReader& m, AttentionSpec& body) {
    bool none = false;
    body.softcap = keyword_or_positive(m, "softcap", "none",
                                       "'none' or positive in f32 (logits -> c·tanh(logits/c))", &none);
  }
};

}  // namespace

std::unique_ptr<FamilyCodec> make_attention_codec() { return std::make_unique<AttentionCodec>(); }

}  // namespace tsr
