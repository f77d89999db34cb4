// The buffer a body moves through between the two sides, taken from a small
// per-thread cache. A keep-alive request would otherwise allocate and free one
// per answer, and glibc hands a freed block this large straight back to the
// kernel (consolidation, heap trim, madvise, page faults on the next request).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace osf::net {

class RelayBuffer {
public:
    static constexpr std::size_t size = 64 * 1024;

    RelayBuffer() : data_(take()) {}
    ~RelayBuffer() { give_back(std::move(data_)); }
    RelayBuffer(const RelayBuffer&) = delete;
    RelayBuffer& operator=(const RelayBuffer&) = delete;

    char* data() { return data_.get(); }

private:
    // Bodies in flight at once on one worker beyond this allocate as before.
    static constexpr std::size_t kept_per_thread = 8;
    using Block = std::unique_ptr<char[]>;

    static std::vector<Block>& cache() {
        thread_local std::vector<Block> blocks;
        return blocks;
    }
    static Block take() {
        auto& blocks = cache();
        if (blocks.empty()) return Block(new char[size]);
        Block block = std::move(blocks.back());
        blocks.pop_back();
        return block;
    }
    static void give_back(Block block) {
        auto& blocks = cache();
        if (blocks.size() < kept_per_thread) blocks.push_back(std::move(block));
    }

    Block data_;
};

} // namespace osf::net
