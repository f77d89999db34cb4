#include "local/launch/template_choice.hpp"

#include "commands/command_errors.hpp"

namespace osf::local {

TemplateChoice choose_template(const std::string& name, const TemplateLookup& lookup) {
    TemplateChoice choice;
    if (name == kHostTemplate) return choice;
    if (!name.empty() && name.front() == '/') {
        if (!lookup.directory_exists(name))
            throw commands::UsageError("template " + name + " is not a directory");
        choice.kind = TemplateChoice::Kind::RootDirectory;
        choice.root_directory = name;
        return choice;
    }
    if (name.find_first_of("/:@") != std::string::npos) {
        if (!lookup.image_exists(name))
            throw commands::UsageError(
                "image " + name +
                " is not in buildah's local storage (sandbox-local pulls nothing: buildah pull it "
                "first, or use \"host\", a root file system directory or a snapshot)");
        choice.kind = TemplateChoice::Kind::Image;
        choice.image = name;
        return choice;
    }
    if (!lookup.snapshot_exists(name))
        throw commands::CommandFailed("no template " + name +
                                      " (\"host\", a root file system directory or a snapshot)");
    choice.kind = TemplateChoice::Kind::Snapshot;
    choice.snapshot = name;
    return choice;
}

} // namespace osf::local
