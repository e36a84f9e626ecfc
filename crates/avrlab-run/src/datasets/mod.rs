//! Dataset adapters: Vul4J and VJBench rows into task folders (`import`), SusVibes records to and
//! from feature tasks (`susvibes`).

pub(crate) mod import;
pub(crate) mod susvibes;
