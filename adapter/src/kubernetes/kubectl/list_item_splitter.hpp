// ListItemSplitter: the items of a Kubernetes List document (`{"items":
// [{...}, {...}]}`) cut out one at a time while the document streams in, so a
// list of thousands of objects is never held, or parsed, whole.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace osf::kubernetes::kubectl {

class ListItemSplitter {
public:
    using ItemHandler = std::function<void(std::string_view item)>;

    explicit ListItemSplitter(ItemHandler on_item) : on_item_(std::move(on_item)) {}

    // The next bytes of the document, cut anywhere. Each complete item of the
    // top-level "items" array goes to the handler, as its JSON text.
    void feed(std::string_view chunk);

    // True once the top-level object has closed: the document was whole.
    bool complete() const { return complete_; }

    // The JSON text of the top-level "metadata" object (where a page of a
    // list says how to continue), empty when there was none.
    const std::string& metadata() const { return metadata_; }

private:
    void on_byte(char c);

    ItemHandler on_item_;
    int depth_ = 0; // nesting of objects and arrays
    bool in_string_ = false;
    bool escaped_ = false;
    std::string key_; // the last string read at depth 1 (a key there)
    bool reading_key_ = false;
    bool in_items_ = false;    // inside the top-level "items" array
    bool in_metadata_ = false; // inside the top-level "metadata" object
    std::string metadata_;
    std::string item_; // the item being cut out
    bool complete_ = false;
};

} // namespace osf::kubernetes::kubectl
