// The YAML document tree the spec reader walks (spec_reader.cpp): one pass over yaml-cpp's parser
// events (DocumentScan) builds the first document's nodes and bounds alias expansion. Private to
// src/spec.
#pragma once

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "typestar/spec/spec.hpp"

namespace typestar::spec::detail {

/// One node of the document, built from the parser's events (DocumentScan). yaml-cpp's own node
/// tree would cost a second parse of the text and a shared_ptr per node; this one is built in the
/// pass that measures aliases. An alias is a pointer to the node it names, as in yaml-cpp.
struct TreeNode {
    YAML::NodeType::value type = YAML::NodeType::Null;
    YAML::Mark mark;
    std::string scalar;
    std::vector<const TreeNode*> items;  // a sequence's items; a map's keys and values, alternating
};

/// A read-only handle with the part of Node's interface the reader uses; a default handle is
/// an undefined node (an empty document).
class Node {
public:
    Node() = default;
    explicit Node(const TreeNode* node) : node_(node) {}
    [[nodiscard]] YAML::NodeType::value Type() const { return node_ ? node_->type : YAML::NodeType::Undefined; }
    [[nodiscard]] bool IsDefined() const { return node_ != nullptr; }
    [[nodiscard]] bool IsNull() const { return Type() == YAML::NodeType::Null; }
    [[nodiscard]] bool IsScalar() const { return Type() == YAML::NodeType::Scalar; }
    [[nodiscard]] bool IsSequence() const { return Type() == YAML::NodeType::Sequence; }
    [[nodiscard]] bool IsMap() const { return Type() == YAML::NodeType::Map; }
    [[nodiscard]] const std::string& Scalar() const {
        static const std::string kEmpty;
        return node_ ? node_->scalar : kEmpty;
    }
    [[nodiscard]] YAML::Mark Mark() const { return node_ ? node_->mark : YAML::Mark::null_mark(); }
    /// A sequence's items, or a map's keys and values alternating.
    [[nodiscard]] std::vector<Node> children() const {
        std::vector<Node> out;
        if (node_ != nullptr) {
            out.reserve(node_->items.size());
            for (const TreeNode* item : node_->items) out.emplace_back(item);
        }
        return out;
    }
    /// Entries of a map, items of a sequence.
    [[nodiscard]] std::size_t size() const {
        if (node_ == nullptr) return 0;
        return IsMap() ? node_->items.size() / 2 : node_->items.size();
    }

private:
    const TreeNode* node_ = nullptr;
};

/// A yaml-cpp mark as a 1-based line and column; {0, 0} for a null mark.
inline Location location_of(const YAML::Mark& mark) {
    if (mark.is_null() || mark.line < 0) return {};
    return {mark.line + 1, mark.column + 1};
}

/// What a node is, for "found a list" style messages (defined in spec_reader.cpp).
[[nodiscard]] std::string kind_of(const Node& node);

/// Thrown by DocumentScan for aliases the reader refuses; becomes one diagnostic.
struct AliasProblem {
    YAML::Mark mark;
    std::string message;
};

/// One pass over the parser's events before any node is built: records where documents start,
/// and measures each document with every alias expanded (yaml-cpp shares an aliased node, but the
/// reader walks it once per alias, and messages quote its scalars). Over `limit` units (a node
/// counts 1, a scalar 1 plus its length) it throws AliasProblem, as it does for an alias inside the
/// node it names, so reading stays linear in the text.
class DocumentScan : public YAML::EventHandler {
public:
    explicit DocumentScan(std::size_t limit) : limit_(limit) {}

    std::vector<YAML::Mark> starts;
    /// The first document's root (null before any document, or for an empty one).
    const TreeNode* root = nullptr;

    void OnDocumentStart(const YAML::Mark& mark) override {
        starts.push_back(mark);
        sizes_.clear();
        nodes_by_anchor_.clear();
        open_.clear();
        parents_.clear();
        expanded_ = 0;
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        leaf(mark, anchor, 1, make(YAML::NodeType::Null, mark, {}));
    }
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        const auto it = sizes_.find(anchor);
        if (it == sizes_.end()) throw AliasProblem{mark, "alias inside the node it refers to (a recursive alias)"};
        add(mark, it->second);
        attach(building() ? nodes_by_anchor_.at(anchor) : nullptr);
    }
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  const std::string& value) override {
        leaf(mark, anchor, 1 + value.size(), make(YAML::NodeType::Scalar, mark, value));
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override {
        open(mark, anchor, make(YAML::NodeType::Sequence, mark, {}));
    }
    void OnSequenceEnd() override { close(); }
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override {
        open(mark, anchor, make(YAML::NodeType::Map, mark, {}));
    }
    void OnMapEnd() override { close(); }

private:
    void add(const YAML::Mark& mark, std::size_t units) {
        expanded_ += units;
        if (expanded_ > limit_) {
            throw AliasProblem{mark, "YAML aliases expand the document beyond " + std::to_string(limit_) +
                                         " units (4 times its size plus 1 MiB): refused as an alias bomb; "
                                         "write the repeated parts out or use fewer aliases"};
        }
    }
    /// Nodes are kept for the first document only; later ones are only measured.
    [[nodiscard]] bool building() const { return starts.size() == 1; }
    TreeNode* make(YAML::NodeType::value type, const YAML::Mark& mark, const std::string& scalar) {
        if (!building()) return nullptr;
        TreeNode& node = arena_.emplace_back();
        node.type = type;
        node.mark = mark;
        node.scalar = scalar;
        return &node;
    }
    /// Adds `node` to the open collection, or makes it the root.
    void attach(const TreeNode* node) {
        if (!building()) return;
        if (parents_.empty()) {
            if (root == nullptr) root = node;
        } else {
            parents_.back()->items.push_back(node);
        }
    }
    void leaf(const YAML::Mark& mark, YAML::anchor_t anchor, std::size_t units, TreeNode* node) {
        add(mark, units);
        if (anchor != YAML::NullAnchor) {
            sizes_[anchor] = units;
            nodes_by_anchor_[anchor] = node;
        }
        attach(node);
    }
    void open(const YAML::Mark& mark, YAML::anchor_t anchor, TreeNode* node) {
        add(mark, 1);
        attach(node);
        open_.emplace_back(anchor, expanded_ - 1);
        parents_.push_back(node);
        if (anchor != YAML::NullAnchor) nodes_by_anchor_[anchor] = node;
    }
    void close() {
        if (open_.empty()) return;
        const auto [anchor, start] = open_.back();
        open_.pop_back();
        parents_.pop_back();
        if (anchor != YAML::NullAnchor) sizes_[anchor] = expanded_ - start;
    }

    std::size_t limit_;
    std::size_t expanded_ = 0;
    std::map<YAML::anchor_t, std::size_t> sizes_;                  // closed anchors -> expanded size
    std::map<YAML::anchor_t, const TreeNode*> nodes_by_anchor_;    // anchors -> their node (first document)
    std::vector<std::pair<YAML::anchor_t, std::size_t>> open_;     // open collections: anchor, start
    std::vector<TreeNode*> parents_;                               // open collections' nodes
    std::deque<TreeNode> arena_;                                   // stable addresses
};

}  // namespace typestar::spec::detail
