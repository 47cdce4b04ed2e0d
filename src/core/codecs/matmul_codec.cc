// matmul: C[M,N] = A·B with row/col operand layouts, f32 accumulation and an
// ordered epilogue chain applied to the accumulator before the store.
#include "codecs/family_codecs.h"

namespace tsr {
namespace {

std::vector<std::string> allowed_epilogue() {
  std::vector<std::string> names = {"bias", "residual", "scale", "clamp"};
  for (const std::string& u : unary_op_names()) names.push_back(u);
  return names;
}

class MatmulCodec final : public FamilyCodec {
 public:
  Family family() const override { return Family::matmul; }
  int version() const override { return 1; }
  std::vector<std::string> keys() const override { return {"accumulate", "shape", "layout", "epilogue"}; }

  bool decode(const MapReader& m, KernelSpec& spec) const override {
    const size_t errors_before = m.diag().error_count();
    decode_accumulate(m, spec);
    MatmulSpec body;
    if (const DocNode* shape = m.map_value("shape", true)) {
      MapReader s(*shape, m.file(), "matmul shape", m.diag());
      s.check_keys({"M", "N", "K"});
      if (auto d = decode_shape_dim(s, "M")) body.m = *d;
      if (auto d = decode_shape_dim(s, "N")) body.n = *d;
      if (auto d = decode_shape_dim(s, "K")) body.k = *d;
    }
    if (const DocNode* layout = m.map_value("layout", true)) {
      MapReader l(*layout, m.file(), "matmul layout", m.diag());
      l.check_keys({"a", "b"});
      if (auto a = l.required_enum("a", {"row", "col"}, "layout")) body.a = *a == "row" ? Layout::row : Layout::col;
      if (auto b = l.required_enum("b", {"row", "col"}, "layout")) body.b = *b == "row" ? Layout::row : Layout::col;
    }
    if (const DocNode* epilogue = m.list_value("epilogue", false)) decode_epilogue(m, *epilogue, body);
    spec.body = body;
    if (m.diag().error_count() == errors_before) check_shape_against_abi(m, spec, {{"M", body.m}, {"N", body.n}, {"K", body.k}});
    return m.diag().error_count() == errors_before;
  }

  void encode(const KernelSpec& spec, CanonicalWriter& out) const override {
    const MatmulSpec& mm = spec.matmul();
    out.field("accumulate");
    out.str(dtype_name(*spec.accumulate));
    out.field("M"); out.dim(mm.m);
    out.field("N"); out.dim(mm.n);
    out.field("K"); out.dim(mm.k);
    out.field("layout.a"); out.str(layout_name(mm.a));
    out.field("layout.b"); out.str(layout_name(mm.b));
    out.field("epilogue");
    out.list_size(mm.epilogue.size());
    for (const EpilogueOp& e : mm.epilogue) {
      out.str(epilogue_kind_name(e.kind));
      if (e.kind == EpilogueOp::Kind::activation) out.str(op_name(e.activation));
      if (e.kind == EpilogueOp::Kind::scale) out.f64(e.scale);
      if (e.kind == EpilogueOp::Kind::clamp) { out.f64(e.lo); out.f64(e.hi); }
    }
  }

 private:
  static void decode_epilogue(const MapReader& m, const DocNode& list, MatmulSpec& body) {
    const std::vector<std::string> allowed = allowed_epilogue();
    for (const DocNode& item : list.items) {
      EpilogueOp op;
      if (item.is_scalar()) {
        const std::string& name = item.text;
        if (name == "bias") op.kind = EpilogueOp::Kind::bias;
        else if (name == "residual") op.kind = EpilogueOp::Kind::residual;
        else if (name == "scale" || name == "clamp") {
          m.error(item, "epilogue op '" + name + "' needs a value (write '- " + name +
                            (name == "scale" ? ": 0.5'" : ": {min: -1, max: 1}'") + ")");
          continue;
        } else if (std::optional<Op> u = op_from_name(name); u && !op_is_binary(*u)) {
          op.kind = EpilogueOp::Kind::activation;
          op.activation = *u;
        } else {
          m.error(item, unknown_value_message("epilogue op", name, allowed));
          continue;
        }
      } else if (item.is_map() && item.size() == 1) {
        const DocNode& key = item.entries[0].key;
        const DocNode& value = item.entries[0].value;
        const std::string name = key.is_scalar() ? key.text : "";
        if (name == "scale") {
          std::optional<double> v = decode_f32_constant(MapReader(item, m.file(), "epilogue op", m.diag()), "scale", true);
          if (!v) continue;
          op.kind = EpilogueOp::Kind::scale;
          op.scale = *v;
        } else if (name == "clamp") {
          if (!value.is_map()) {
            m.error(value, wrong_type_message("a map {min, max}", "clamp", describe_node(value)));
            continue;
          }
          MapReader c(value, m.file(), "clamp", m.diag());
          c.check_keys({"min", "max"});
          std::optional<double> lo = decode_f32_constant(c, "min", true), hi = decode_f32_constant(c, "max", true);
          if (!lo || !hi) continue;
          if (*lo > *hi) { m.error(value, "clamp min " + c.get("min")->text + " is greater than max " + c.get("max")->text); continue; }
          op.kind = EpilogueOp::Kind::clamp;
          op.lo = *lo;
          op.hi = *hi;
        } else {
          m.error(key, unknown_value_message("epilogue op", name, allowed));
          continue;
        }
      } else {
        m.error(item, std::string("expected an epilogue op name or a one-key map, got ") + describe_node(item));
        continue;
      }
      if ((op.kind == EpilogueOp::Kind::bias && body.has_bias()) ||
          (op.kind == EpilogueOp::Kind::residual && body.has_residual())) {
        m.error(item, std::string("epilogue op '") + epilogue_kind_name(op.kind) +
                          "' may appear only once (it names one ABI input)");
        continue;
      }
      body.epilogue.push_back(op);
    }
  }
};

}  // namespace

std::unique_ptr<FamilyCodec> make_matmul_codec() { return std::make_unique<MatmulCodec>(); }

}  // namespace tsr
