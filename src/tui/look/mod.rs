//! How the browser looks: colours, the texts it shows, number and date
//! formats, where each pane goes on the screen, and whether images are
//! drawn as pictures.

pub mod format;
pub mod images;
pub mod layout;
pub mod strings;
pub mod theme;
