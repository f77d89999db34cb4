#include "log/policy_record.hpp"

#include "log/json_line_writer.hpp"
#include "osf/log_fields.hpp"

namespace osf::log {

std::string policy_line(const PolicyRecord& record, std::string_view time) {
    std::string line;
    JsonLineWriter j(line);
    j.field(osf::log_field::time, time);
    j.field(osf::log_evidence_field::kind, osf::log_kind::policy);
    j.field(osf::policy_field::change, record.change);
    if (!record.entries.empty()) j.field(osf::policy_field::entries, record.entries);
    if (!record.tools.empty()) j.field(osf::policy_field::tools, record.tools);
    j.field(osf::policy_field::by, record.by);
    j.field(osf::policy_field::generation, record.generation);
    if (record.ended) j.field(osf::policy_field::ended, *record.ended);
    if (!record.secret.empty()) j.field(osf::policy_field::secret, record.secret);
    j.finish();
    return line;
}

} // namespace osf::log
