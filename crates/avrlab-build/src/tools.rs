//! Which driver builds a task: the one its build system names.

use avrlab_bench::{BuildSpec, BuildSystem};

use crate::ant::Ant;
use crate::build_tool::BuildTool;
use crate::gradle::Gradle;
use crate::maven::{BuildError, BuildSettings, Maven};

/// The build tool a task names, set up for it.
pub fn build_tool(
    settings: BuildSettings,
    build: &BuildSpec,
) -> Result<Box<dyn BuildTool>, BuildError> {
    Ok(match build.system {
        BuildSystem::Maven => Box::new(Maven::for_build(settings, build)?),
        BuildSystem::Gradle => Box::new(Gradle::for_build(settings, build)?),
        BuildSystem::Ant => Box::new(Ant::for_build(settings, build)?),
    })
}
