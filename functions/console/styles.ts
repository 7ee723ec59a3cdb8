/** The console's stylesheet (served from /console/assets; no inline styles under the CSP). */
export const STYLES = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#f6f7f9}
a{color:#0b57d0}
header.top{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;padding:.6rem 1rem;background:#1f2937;color:#fff}
header.top a{color:#fff}
.brand{font-weight:700;text-decoration:none}
.crumbs{display:flex;flex-wrap:wrap;gap:.25rem;margin:0;padding:0;list-style:none}
.crumbs li+li::before{content:"/";margin-right:.25rem;color:#d1d5db}
.signout{margin-left:auto}
main{max-width:1200px;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
h3{font-size:1.05rem;margin:1.25rem 0 .5rem}
section.card>h2:first-child{margin-top:0}
section.card{background:#fff;border:1px solid #d1d5db;border-radius:8px;padding:1rem;margin:0 0 1rem}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #e5e7eb;vertical-align:top}
td code,.names{font-size:.85rem;overflow-wrap:anywhere}
form{margin:0}
form.inline{display:inline-flex;flex-wrap:wrap;gap:.4rem;align-items:center}
.wrap-any,.wrap-any td{overflow-wrap:anywhere}fieldset{min-width:0}form.stack{display:grid;gap:.6rem;max-width:36rem}
form.row{display:flex;flex-wrap:wrap;gap:.6rem;align-items:end}
label{display:grid;gap:.2rem;font-weight:600;font-size:.9rem}
label input,label select,label textarea{font-weight:400}
label.check{display:flex;gap:.4rem;align-items:center}
input,select,textarea,button{font:inherit;min-height:2.25rem}
input[type=text],input[type=password],input:not([type]),select,textarea{padding:.3rem .5rem;border:1px solid #6b7280;border-radius:6px;background:#fff;color:#1a1a1a;max-width:100%}
textarea{width:100%;min-height:8rem;font-family:ui-monospace,monospace}
button{padding:.3rem .8rem;border:1px solid #1f2937;border-radius:6px;background:#fff;color:#1a1a1a;cursor:pointer}
button[type=submit]:not(.danger){background:#0b57d0;border-color:#0b57d0;color:#fff}
button.danger{background:#b42318;border-color:#b42318;color:#fff}
header.top button{background:transparent;border-color:#fff;color:#fff}
a.button{display:inline-block;padding:.4rem .9rem;border:1px solid #1f2937;border-radius:6px;background:#fff;color:#1a1a1a;text-decoration:none}
ul.providers{list-style:none;padding:0;margin:0 0 1rem}
.flash{padding:.6rem .8rem;border-radius:6px}
.flash.notice{background:#e7f5ec;color:#0f5132}
.flash.error{background:#fdecea;color:#8a1c12}
.field-error{color:#8a1c12;font-weight:400}
.hint{color:#4b5563;font-size:.9rem;font-weight:400}
.tabs{display:flex;flex-wrap:wrap;gap:.25rem;border-bottom:2px solid #d1d5db;margin-bottom:1rem;padding:0;list-style:none}
.tabs a{display:block;padding:.4rem .8rem;text-decoration:none;border-radius:6px 6px 0 0}
.tabs a[aria-current=page]{background:#fff;border:2px solid #d1d5db;border-bottom-color:#fff;margin-bottom:-2px;color:#1a1a1a;font-weight:600}
.secret{font-family:ui-monospace,monospace;background:#fff7e6;padding:.5rem;border:1px solid #f0c36d;border-radius:6px;overflow-wrap:anywhere}
.dialog{background:#fff;border:2px solid #1f2937;border-radius:8px;padding:1rem;max-width:32rem}
.actions{display:flex;gap:.6rem;flex-wrap:wrap}
dialog::backdrop{background:rgba(0,0,0,.4)}
summary{cursor:pointer;color:#0b57d0}
.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
[hidden]{display:none!important}
@media (max-width:600px){th,td{padding:.3rem}main{padding:.6rem}table.stack-sm thead{display:none}table.stack-sm tr{display:block;border-bottom:1px solid #d1d5db;padding:.4rem 0}table.stack-sm td{display:block;border:0;padding:.15rem .3rem}}
`;
