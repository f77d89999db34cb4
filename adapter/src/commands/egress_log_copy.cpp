#include "commands/egress_log_copy.hpp"

#include "commands/command_errors.hpp"
#include "egress_log/log_summary.hpp"
#include "egress_log/log_verifier.hpp"
#include "egress_log/report_page.hpp"

#include <exception>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <unistd.h>

namespace osf::commands {

LogCopy take_log_copy(sandbox::EgressLogAccess& access, std::ostream& err,
                      const std::string& program) {
    LogCopy copy;
    copy.key = access.key();
    try {
        access.request_checkpoint(); // so that the copy is signed to its last line
    } catch (const Interrupted&) {
        throw;
    } catch (const std::exception& e) {
        err << program << ": the proxy wrote no checkpoint (" << e.what()
            << "); lines after its last one are unsigned\n";
    }
    copy.text = access.text();
    return copy;
}

int report_log_copy(const LogCopy& copy, const std::string& id, bool summary, bool json,
                    std::ostream& out, std::ostream& err) {
    const auto report = egress_log::verify_log(copy.text, copy.key.raw);
    if (summary) {
        const auto summarised = egress_log::summarise_log(copy.text, report);
        if (json)
            out << egress_log::render_json(summarised).dump(2) << "\n";
        else
            out << egress_log::render_text(summarised);
    } else {
        (report.ok ? out : err) << egress_log::describe(report, "egress log of " + id);
    }
    return report.ok ? 0 : kExitFailure;
}

void check_report_file(const std::string& path) {
    if (path == "-") return;
    namespace fs = std::filesystem;
    const fs::path file(path);
    const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
    std::error_code ec;
    if (fs::is_directory(file, ec) || !fs::is_directory(dir, ec) ||
        ::access(dir.c_str(), W_OK) != 0)
        throw UsageError("cannot write " + path);
}

int write_log_report(const LogCopy& copy, const std::string& id, const std::string& path,
                     std::ostream& out, std::ostream& err) {
    const auto report = egress_log::verify_log(copy.text, copy.key.raw);
    const std::string name = "egress log of " + id;
    const std::string page = egress_log::render_report(copy.text, report, name);
    if (path == "-") {
        out << page << std::flush;
    } else {
        std::ofstream file(path, std::ios::binary | std::ios::trunc);
        file << page;
        file.close();
        if (!file) throw UsageError("cannot write " + path);
    }
    if (!report.ok) err << egress_log::describe(report, name);
    return report.ok ? 0 : kExitFailure;
}

} // namespace osf::commands
