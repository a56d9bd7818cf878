import { render } from "preact";
import "katex/dist/katex.min.css";
import "./style.css";
import { App } from "./App";
import { start } from "./live";
import { showRememberedTheme } from "./theme";

// Before the first render, and long before register answers with the saved setting.
showRememberedTheme();

render(<App />, document.getElementById("app")!);
void start();
