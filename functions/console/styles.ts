/**
 * The console's stylesheet (served from /console/assets; no inline styles under the CSP): one
 * small design system of custom properties (spacing, type scale, colours) with a dark scheme
 * that follows the system, and one button hierarchy: primary blue, secondary outlined,
 * destructive red everywhere. Every colour pair keeps WCAG AA contrast in both schemes.
 */
export const STYLES = `
:root{color-scheme:light dark;
--space-1:.25rem;--space-2:.5rem;--space-3:.75rem;--space-4:1rem;--space-6:1.5rem;
--text-sm:.875rem;--text-base:1rem;--text-lg:1.2rem;--text-xl:1.5rem;--radius:8px;
--font-mono:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
--bg:#f6f7f9;--surface:#fff;--text:#1a1a1a;--muted:#4b5563;--border:#d1d5db;--border-strong:#6b7280;
--header-bg:#1f2937;--header-text:#fff;--link:#0b57d0;
--primary:#0b57d0;--primary-text:#fff;--danger:#b42318;--danger-text:#fff;
--notice-bg:#e7f5ec;--notice-text:#0f5132;--error-bg:#fdecea;--error-text:#8a1c12;
--secret-bg:#fff7e6;--secret-border:#c98a12;--code-bg:#eef1f5;--cell-on:#e8f0fe}
@media (prefers-color-scheme:dark){:root{
--bg:#0f1115;--surface:#1a1d23;--text:#e6e8eb;--muted:#a9b1bc;--border:#3a3f48;--border-strong:#8b949e;
--header-bg:#000;--header-text:#f2f4f7;--link:#8ab4f8;
--primary:#8ab4f8;--primary-text:#0b1a33;--danger:#f28b82;--danger-text:#2b0703;
--notice-bg:#0f2e1c;--notice-text:#a8e6bf;--error-bg:#3b1210;--error-text:#ffb4ab;
--secret-bg:#2a2210;--secret-border:#b38a2e;--code-bg:#262a31;--cell-on:#1d2b44}}
*{box-sizing:border-box}
body{margin:0;font:var(--text-base)/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--text);background:var(--bg)}
a{color:var(--link)}
code,.mono{font-family:var(--font-mono);font-size:.9em}
header.top{display:flex;flex-wrap:wrap;align-items:center;gap:var(--space-2) var(--space-4);padding:.6rem var(--space-4);background:var(--header-bg);color:var(--header-text)}
header.top a{color:var(--header-text)}
.brand{font-weight:700;text-decoration:none}
.crumbs{display:flex;flex-wrap:wrap;gap:var(--space-1);margin:0;padding:0;list-style:none}
.crumbs li+li::before{content:"/";margin-right:var(--space-1);color:#d1d5db}
.account{margin-left:auto;display:flex;flex-wrap:wrap;gap:var(--space-2) var(--space-3);align-items:center}
.signout{margin-left:auto}.account .signout{margin-left:0}
.who{overflow-wrap:anywhere}
main{max-width:1200px;margin:0 auto;padding:var(--space-4)}
h1{font-size:var(--text-xl);margin:var(--space-2) 0 var(--space-4);overflow-wrap:anywhere}
h2{font-size:var(--text-lg);margin:var(--space-6) 0 var(--space-2)}
h3{font-size:1.05rem;margin:1.25rem 0 var(--space-2)}
section.card>h2:first-child{margin-top:0}
section.card{background:var(--surface);border:1px solid var(--border);border-radius:var(--radius);padding:var(--space-4);margin:0 0 var(--space-4);min-width:0}
.subnav{display:flex;flex-wrap:wrap;gap:var(--space-3);margin:0 0 var(--space-4)}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;background:var(--surface)}
th,td{text-align:left;padding:.4rem var(--space-2);border-bottom:1px solid var(--border);vertical-align:top}
td code,.names{font-size:var(--text-sm);overflow-wrap:anywhere}
form{margin:0}
form.inline{display:inline-flex;flex-wrap:wrap;gap:.4rem;align-items:center}
.wrap-any,.wrap-any td{overflow-wrap:anywhere}fieldset{min-width:0;border:1px solid var(--border);border-radius:var(--radius)}
form.stack{display:grid;gap:.6rem;max-width:36rem}
form.row{display:flex;flex-wrap:wrap;gap:.6rem;align-items:end}
label{display:grid;gap:.2rem;font-weight:600;font-size:.9rem}
label input,label select,label textarea{font-weight:400}
label.check{display:flex;gap:.4rem;align-items:center}
input,select,textarea,button{font:inherit;min-height:2.25rem}
input[type=text],input[type=password],input[type=email],input:not([type]),select,textarea{padding:.3rem var(--space-2);border:1px solid var(--border-strong);border-radius:6px;background:var(--surface);color:var(--text);max-width:100%}
textarea{width:100%;min-height:8rem;font-family:var(--font-mono)}
button,a.button{display:inline-block;padding:.3rem .8rem;border:1px solid var(--primary);border-radius:6px;background:var(--primary);color:var(--primary-text);cursor:pointer;text-decoration:none;font-weight:500}
button.secondary,a.button.secondary,button.copy{background:transparent;color:var(--text);border-color:var(--border-strong)}
button.danger{background:var(--danger);border-color:var(--danger);color:var(--danger-text)}
header.top button{background:transparent;border-color:var(--header-text);color:var(--header-text)}
button.copy.copied{border-color:var(--primary);box-shadow:0 0 0 2px var(--primary)}
button.copy{min-height:1.9rem;padding:.1rem .6rem;font-size:var(--text-sm);max-width:100%;overflow-wrap:anywhere;text-align:left}
ul.providers{list-style:none;padding:0;margin:0 0 var(--space-4)}
.flash{padding:.6rem .8rem;border-radius:6px}
.flash.notice{background:var(--notice-bg);color:var(--notice-text)}
.flash.error{background:var(--error-bg);color:var(--error-text)}
.field-error{color:var(--error-text);font-weight:400}
.hint{color:var(--muted);font-size:.9rem;font-weight:400}
.tabs{display:flex;flex-wrap:wrap;gap:var(--space-1);border-bottom:2px solid var(--border);margin-bottom:var(--space-4);padding:0;list-style:none}
.tabs a{display:block;padding:.4rem .8rem;text-decoration:none;border-radius:6px 6px 0 0}
.tabs a[aria-current=page]{background:var(--surface);border:2px solid var(--border);border-bottom-color:var(--surface);margin-bottom:-2px;color:var(--text);font-weight:600}
.secret{font-family:var(--font-mono);background:var(--secret-bg);padding:var(--space-2);border:1px solid var(--secret-border);border-radius:6px;overflow-wrap:anywhere;color:var(--text)}
.values{display:grid;grid-template-columns:minmax(8rem,max-content) minmax(0,1fr);gap:var(--space-2) var(--space-3);align-items:start;margin:0 0 var(--space-4)}
.values dt{font-weight:600;padding-top:var(--space-2)}.values dd{margin:0;display:flex;flex-wrap:wrap;gap:var(--space-2);align-items:center;min-width:0}
.values dd .secret{flex:1 1 16rem;min-width:0}
.copy-value{display:flex;flex-wrap:wrap;gap:var(--space-2);align-items:center;overflow-wrap:anywhere}
.dialog{background:var(--surface);color:var(--text);border:2px solid var(--border-strong);border-radius:var(--radius);padding:var(--space-4);max-width:32rem}
.actions{display:flex;gap:.6rem;flex-wrap:wrap;align-items:center}
dialog::backdrop{background:rgba(0,0,0,.5)}
summary{cursor:pointer;color:var(--link)}
.badge{display:inline-block;padding:0 .4rem;border-radius:999px;border:1px solid var(--border-strong);font-size:var(--text-sm);color:var(--muted)}
table.map th,table.map td{text-align:center}table.map th[scope=row],table.map thead th:first-child{text-align:left}
.who{font-size:var(--text-sm);overflow-wrap:anywhere}
table.map td.on{background:var(--cell-on)}
.conn-string{display:grid;gap:var(--space-2)}.conn-string .choice{display:flex;flex-wrap:wrap;gap:var(--space-3)}
.conn-string:has(input[value=pooled]:checked) .url:not(.pooled),.conn-string:has(input[value=direct]:checked) .url:not(.direct),.conn-string:has(input[value=internal]:checked) .url:not(.internal){display:none}
.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
[hidden]{display:none!important}
@media (max-width:600px){th,td{padding:.3rem}main{padding:.6rem}
table.stack-sm thead{display:none}table.stack-sm tr{display:block;border-bottom:1px solid var(--border);padding:.4rem 0}
table.stack-sm td,table.stack-sm th[scope=row]{display:block;border:0;padding:.15rem .3rem}
table.stack-sm td[data-label]::before{content:attr(data-label);display:block;font-size:var(--text-sm);font-weight:600;color:var(--muted)}
.values{grid-template-columns:minmax(0,1fr)}.values dt{padding-top:0}}
`;
