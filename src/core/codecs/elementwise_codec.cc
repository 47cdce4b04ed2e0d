// elementwise: out = ops applied in order to in0, each binary op consuming the
// next input; same-shape contiguous operands of `shape.N` elements.
#include "codecs/family_codecs.h"
#include "support/suggest.h"

namespace tsr {
namespace {

class ElementwiseCodec final : public FamilyCodec {
 public:
  Family family() const override { return Family::elementwise; }
  int version() const override { return 1; }
  std::vector<std::string> keys() const override { return {"ops", "shape"}; }
  std::vector<std::string> rejected_keys() const override { return {"accumulate"}; }

  bool decode(const MapReader& m, KernelSpec& spec) const override {
    const size_t errors_before = m.diag().error_count();
    m.reject_if_present("accumulate", "does not apply to elementwise (it does not accumulate)");
    ElementwiseSpec body;
    if (const DocNode* ops = m.require("ops")) {
      if (!ops->is_list()) {
        m.error(ops, wrong_type_message("a list of ops", "ops", describe_node(*ops)));
      } else if (ops->items.empty()) {
        m.error(ops, "'ops' must list at least one op");
      } else {
        std::vector<std::string> allowed;
        for (Op op : all_ops()) allowed.push_back(op_name(op));
        for (const DocNode& item : ops->items) {
          std::optional<std::string> name = m.scalar(item, "ops");
          if (!name) continue;
          std::optional<Op> op = op_from_name(*name);
          if (!op) {
            m.error(item, "unknown op '" + *name + "' in elementwise ops" + did_you_mean(*name, allowed) + " (allowed: " +
                              join(allowed) + ")");
            continue;
          }
          body.ops.push_back(*op);
        }
      }
    }
    if (const DocNode* shape = m.map_value("shape", true)) {
      MapReader s(*shape, m.file(), "elementwise shape", m.diag());
      s.check_keys({"N"});
      if (std::optional<Dim> n = decode_shape_dim(s, "N")) body.n = *n;
    }
    spec.body = body;
    if (m.diag().error_count() == errors_before) check_shape_against_abi(m, spec, {{"N", body.n}});
    return m.diag().error_count() == errors_before;
  }

  void encode(const KernelSpec& spec, CanonicalWriter& out) const override {
    const ElementwiseSpec& e = spec.elementwise();
    out.field("ops");
    out.list_size(e.ops.size());
    for (Op op : e.ops) out.str(op_name(op));
    out.field("N");
    out.dim(e.n);
  }
};

}  // namespace

std::unique_ptr<FamilyCodec> make_elementwise_codec() { return std::make_unique<ElementwiseCodec>(); }

}  // namespace tsr
