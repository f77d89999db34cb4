#include "kubernetes/kubectl/list_item_splitter.hpp"

namespace osf::kubernetes::kubectl {

void ListItemSplitter::feed(std::string_view chunk) {
    for (const char c : chunk)
        on_byte(c);
}

void ListItemSplitter::on_byte(char c) {
    // Depth 2 inside "items" is between items; deeper is inside one.
    const bool in_item = in_items_ && depth_ >= 3;
    if (in_item || (in_items_ && depth_ == 2 && c == '{')) item_ += c;
    if (in_metadata_) metadata_ += c;
    if (in_string_) {
        if (escaped_) {
            escaped_ = false;
        } else if (c == '\\') {
            escaped_ = true;
        } else if (c == '"') {
            in_string_ = false;
            reading_key_ = false;
        } else if (reading_key_) {
            key_ += c;
        }
        return;
    }
    switch (c) {
    case '"':
        in_string_ = true;
        if (depth_ == 1) {
            // Top-level keys and values alike; only a key followed by '[' matters.
            reading_key_ = true;
            key_.clear();
        }
        break;
    case '{':
    case '[':
        ++depth_;
        if (depth_ == 2 && c == '[' && key_ == "items") in_items_ = true;
        if (depth_ == 2 && c == '{' && key_ == "metadata" && metadata_.empty()) {
            in_metadata_ = true;
            metadata_ += c;
        }
        break;
    case '}':
    case ']':
        --depth_;
        if (in_items_ && depth_ == 2 && c == '}') {
            on_item_(item_);
            item_.clear();
        } else if (in_items_ && depth_ == 1) {
            in_items_ = false;
        } else if (in_metadata_ && depth_ == 1) {
            in_metadata_ = false;
        } else if (depth_ == 0) {
            complete_ = true;
        }
        break;
    default:
        break;
    }
}

} // namespace osf::kubernetes::kubectl
